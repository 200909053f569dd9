import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { StreamEvent } from '@weft/core';
import { describe, expect, it } from 'vitest';
import { Weft } from './weft.js';

async function weftWith(streaming: string) {
  let logs = '';
  const weft = new Weft({
    logDestination: new Writable({ write: (chunk, _e, done) => ((logs += String(chunk)), done()) }),
    logLevel: 'info',
    logFormat: 'json',
  });
  const path = join(mkdtempSync(join(tmpdir(), 'weft-sdk-stream-')), 'flow.yaml');
  writeFileSync(
    path,
    `workflows:
  - name: w
    execution:
      streaming: ${streaming}
    steps:
      - { name: a, type: transform, input: { n: 1 } }
      - { name: b, type: transform, input: { n: '{{ steps.a.output.n + 1 }}' } }
    outputs:
      n: { value: '{{ steps.b.output.n }}' }
`,
  );
  await weft.loadWorkflows(path);
  return { weft, logs: () => logs };
}

describe('execution.streaming in a local run of the SDK', () => {
  it('gives onEvent only the listed event types; observe and the logs get them all', async () => {
    const { weft, logs } = await weftWith('{ events: [workflow.completed] }');
    const events: StreamEvent[] = [];
    const observed: StreamEvent[] = [];
    const result = await weft.execute(
      'w',
      {},
      {
        onEvent: (e) => events.push(e),
        observe: (e) => observed.push(e),
      },
    );
    expect(events.map((e) => e.type)).toEqual(['workflow.completed']);
    expect(observed.map((e) => e.type)).toContain('step.completed');
    expect(logs()).toContain('step b success');
    expect(result.outputs).toEqual({ n: 2 });
  });

  it('gives onEvent nothing with enabled: false, and the same result', async () => {
    const { weft } = await weftWith('{ enabled: false }');
    const events: StreamEvent[] = [];
    const result = await weft.execute('w', {}, { onEvent: (e) => events.push(e) });
    expect(events).toEqual([]);
    expect(result.status).toBe('completed');
    expect(result.outputs).toEqual({ n: 2 });
    expect(Object.keys(result.steps)).toEqual(['a', 'b']);
  });
});
