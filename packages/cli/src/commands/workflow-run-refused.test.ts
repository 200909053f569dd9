import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../test-support.js';

/** A folder holding `flow.yaml` with `steps`, and an empty `agents` folder when asked. */
function project(steps: string, options: { agents?: boolean } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'weft-refused-'));
  if (options.agents) mkdirSync(join(dir, 'agents'));
  writeFileSync(join(dir, 'flow.yaml'), `workflows:\n  - name: flow\n    steps:\n${steps}`);
  return dir;
}

const FIRST = '      - { name: first, type: transform, input: { v: 1 } }\n';

// What a run needs that is not there is refused before any step runs, with exit 2 (an invalid
// file or input), as the help says; a step failing while it runs exits 1.
describe('weft workflow run refuses what cannot run before anything runs', () => {
  it('an unknown agent with no agents loaded: exit 2, no step ran', async () => {
    const dir = project(
      `${FIRST}      - { name: ask, type: agent, agent: 'agent:acme/missing@1.0.0', input: { prompt: hi } }\n`,
    );
    // No --agents, and no ./agents where the tests run: no agent runner at all.
    const result = await run('workflow', 'run', join(dir, 'flow.yaml'));
    expect(result.code, result.out + result.err).toBe(2);
    expect(result.out + result.err).toContain('unknown agent agent:acme/missing@1.0.0');
    expect(result.out).not.toContain('first');
  });

  it('an unknown agent beside loaded ones, and an unknown connector: exit 2, no step ran', async () => {
    for (const step of [
      "      - { name: ask, type: agent, agent: 'agent:acme/missing@1.0.0', input: { prompt: hi } }\n",
      "      - { name: call, connector: 'connector:acme/missing@1.0.0', action: x, input: {} }\n",
    ]) {
      const dir = project(`${FIRST}${step}`, { agents: true });
      const flow = join(dir, 'flow.yaml');
      const result = await run(
        'workflow',
        'run',
        flow,
        '--agents',
        join(dir, 'agents'),
        '-o',
        'json',
      );
      expect(result.code, result.out + result.err).toBe(2);
      const doc = JSON.parse(result.out) as { status: string; steps: object; error: object };
      expect(doc.status).toBe('failed');
      expect(doc.steps).toEqual({});
      expect(doc.error).toMatchObject({ code: 'VALIDATION' });
    }
  });

  it('a step that fails while it runs still exits 1', async () => {
    const dir = project(
      `${FIRST}      - { name: bad, type: transform, input: { v: '{{ steps.first.output.missing.deeper }}' } }\n`,
    );
    const result = await run('workflow', 'run', join(dir, 'flow.yaml'));
    expect(result.code, result.out + result.err).toBe(1);
  });
});
