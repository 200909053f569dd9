import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { run } from '../test-support.js';

const work = mkdtempSync(join(tmpdir(), 'weft-cli-sandbox-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const VARIABLES = ['WEFT_SANDBOX', 'WEFT_CGROUP_PARENT', 'WEFT_SCRATCH_DIR'] as const;
/** Sets the sandbox's variables for one test (the command reads the process environment). */
function withEnv(values: Partial<Record<(typeof VARIABLES)[number], string>>): void {
  for (const name of VARIABLES) delete process.env[name];
  Object.assign(process.env, { WEFT_SCRATCH_DIR: join(work, 'scratch'), ...values });
}
afterEach(() => {
  for (const name of VARIABLES) delete process.env[name];
});

/** A parent group no hierarchy can make: `cgroup.procs` is a file in every group. */
const UNWRITABLE = '/cgroup.procs/weft';

interface Row {
  limit: string;
  enforced: boolean;
  how: string;
}
async function checkJson(): Promise<{ mode: string; limits: Row[] }> {
  const result = await run('sandbox', 'check', '-o', 'json');
  expect(result.err).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.out) as { mode: string; limits: Row[] };
}

const linuxRoot = process.platform === 'linux' && process.getuid?.() === 0;

describe('weft sandbox check', () => {
  it.skipIf(!linuxRoot)(
    'prints per limit whether this host enforces it and how (needs root on Linux)',
    async () => {
      withEnv({ WEFT_CGROUP_PARENT: `weft-cli-test-${process.pid}` });
      const result = await run('sandbox', 'check');
      expect(result.code).toBe(0);
      const lines = result.out.split('\n');
      expect(lines[0]).toMatch(/^LIMIT\s+ENFORCED\s+HOW \/ WHY NOT$/);
      for (const limit of ['memory', 'cpu', 'processes', 'file_descriptors', 'storage']) {
        expect(lines.find((l) => l.startsWith(`${limit} `))).toMatch(
          new RegExp(`^${limit}\\s+yes\\s+\\S`),
        );
      }
      expect(lines.find((l) => l.startsWith('bandwidth '))).toMatch(/^bandwidth\s+no\s+/);
      expect(result.out).toContain(`weft-cli-test-${process.pid}`);
      expect(result.out).toContain('mode strict: a connector or step declaring a limit marked');
    },
  );

  it('prints the mode and the report as JSON with --output json', async () => {
    withEnv({ WEFT_SANDBOX: 'best-effort', WEFT_CGROUP_PARENT: `weft-cli-test-${process.pid}` });
    const doc = await checkJson();
    expect(doc.mode).toBe('best-effort');
    expect(doc.limits.map((r) => r.limit)).toEqual([
      'memory',
      'cpu',
      'processes',
      'disk_io',
      'file_descriptors',
      'storage',
      'bandwidth',
    ]);
    expect(doc.limits.find((r) => r.limit === 'storage')).toMatchObject({
      enforced: true,
      how: expect.stringContaining(join(work, 'scratch')),
    });
  });

  it.skipIf(process.platform !== 'linux')(
    'says why memory is not enforced when the parent group cannot be written',
    async () => {
      withEnv({ WEFT_CGROUP_PARENT: UNWRITABLE });
      const memory = (await checkJson()).limits.find((r) => r.limit === 'memory')!;
      expect(memory.enforced).toBe(false);
      // No permission, or (as root) a parent below a file: either way the reason names it.
      expect(memory.how).toMatch(
        /^(cannot write the control group \S*cgroup\.procs\/weft \(\w+\)|no memory cgroup controller is mounted)$/,
      );
    },
  );

  it('refuses a bad setting naming the variable, before probing', async () => {
    withEnv({ WEFT_CGROUP_PARENT: 'weft/../../escape' });
    const result = await run('sandbox', 'check');
    expect(result.code).toBe(2);
    expect(result.out).toBe('');
    expect(result.err).toContain('WEFT_CGROUP_PARENT must be a control group path');
  });
});

describe('weft workflow run with a limit this host cannot enforce', () => {
  const plugins = join(work, 'plugins');
  mkdirSync(plugins, { recursive: true });
  writeFileSync(
    join(plugins, 'boxed.yaml'),
    [
      'connector:',
      '  kind: shell',
      '  name: boxed',
      '  namespace: test',
      '  version: 1.0.0',
      '  runtime: { resources: { memory: 64MB } }',
      'actions:',
      '  - name: echo',
      `    command: ['${process.execPath}', '-e', 'process.stdout.write(JSON.stringify({ ok: true }))']`,
      '',
    ].join('\n'),
  );
  const workflow = join(work, 'boxed-run.yaml');
  writeFileSync(
    workflow,
    'workflows:\n  - name: boxed-run\n    steps: [{ name: echo, type: action, plugin: boxed, action: echo }]\n',
  );
  const runIt = () =>
    run('workflow', 'run', workflow, '--plugins', plugins, '--log-level', 'error', '-o', 'json');

  it.skipIf(process.platform !== 'linux')(
    'refuses the step with VALIDATION in strict mode (the default)',
    async () => {
      withEnv({ WEFT_CGROUP_PARENT: UNWRITABLE });
      const result = await runIt();
      expect(result.code).toBe(1);
      const doc = JSON.parse(result.out) as {
        status: string;
        steps: Record<string, { error?: { code: string; message: string; details: object } }>;
      };
      expect(doc.status).toBe('failed');
      expect(doc.steps['echo']!.error).toMatchObject({
        code: 'VALIDATION',
        message: expect.stringContaining('WEFT_SANDBOX=best-effort'),
        details: { field: 'runtime.memory', constraint: 'sandbox', limit: 'memory' },
      });
    },
  );

  it.skipIf(process.platform !== 'linux')(
    'runs it with a warning on stderr with WEFT_SANDBOX=best-effort',
    async () => {
      withEnv({ WEFT_SANDBOX: 'best-effort', WEFT_CGROUP_PARENT: UNWRITABLE });
      const result = await runIt();
      expect(result.code).toBe(0);
      expect(JSON.parse(result.out)).toMatchObject({ status: 'completed' });
      expect(result.err).toContain(
        'warning: sandbox (best-effort): test/boxed declares limits this host does not enforce: memory (',
      );
    },
  );
});
