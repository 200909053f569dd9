import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../test-support.js';

function workflowFile(streaming: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'weft-stream-')), 'w.yaml');
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
  return path;
}

const eventLines = (out: string) =>
  out
    .split('\n')
    .filter((l) => l.startsWith('{"type"'))
    .map((l) => JSON.parse(l) as { type: string; step_name: string });

describe('weft workflow run --stream and execution.streaming', () => {
  it('prints only the event types the workflow lists', async () => {
    const file = workflowFile('{ events: [step.completed, workflow.completed] }');
    const result = await run('workflow', 'run', file, '--stream', '-o', 'json');
    expect(result.code).toBe(0);
    expect(result.err).toBe('');
    expect(eventLines(result.out).map((e) => `${e.type} ${e.step_name}`)).toEqual([
      'step.completed a',
      'step.completed b',
      'workflow.completed ',
    ]);
  });

  it('prints no event with enabled: false, says so once on stderr, and still gives the result', async () => {
    const file = workflowFile('{ enabled: false }');
    const result = await run('workflow', 'run', file, '--stream', '-o', 'json');
    expect(result.code).toBe(0);
    expect(eventLines(result.out)).toEqual([]);
    expect(result.err).toBe(
      'weft: workflow "w" disables streaming (execution.streaming.enabled: false): --stream prints no events\n',
    );
    const doc = JSON.parse(result.out.slice(result.out.indexOf('{'))) as Record<string, unknown>;
    expect(doc).toMatchObject({ status: 'completed', outputs: { n: 2 } });
  });
});
