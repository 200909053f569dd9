import { execFile } from 'node:child_process';
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const cli = fileURLToPath(new URL('../../', import.meta.url));
const project = mkdtempSync(join(tmpdir(), 'weft-lock-project-'));
afterAll(() => rmSync(project, { recursive: true, force: true }));

/** Runs the built `weft ...args` in `cwd` (where weft.config.yaml is looked for). */
async function weftIn(cwd: string, ...args: string[]) {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [join(cli, 'bin/weft.js'), ...args],
      { cwd },
    );
    return { code: 0, out: stdout, err: stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout, err: e.stderr };
  }
}

describe('weft.lock of a project with weft.config.yaml', { timeout: 60_000 }, () => {
  it('is written at the project root for every workflow file, and held to from any directory', async () => {
    mkdirSync(join(project, 'workflows'));
    mkdirSync(join(project, 'plugins'));
    writeFileSync(join(project, 'weft.config.yaml'), 'plugins: plugins\nworkflows: workflows\n');
    writeFileSync(
      join(project, 'plugins', 'tools.yaml'),
      `connector: { type: connector, kind: shell, name: tools, namespace: acme, version: 1.0.0 }
actions:
  - { name: echo, description: echo, command: ["echo", '{"ok": true}'] }
`,
    );
    writeFileSync(
      join(project, 'workflows', 'orders.yaml'),
      'workflows:\n  - name: orders\n    steps:\n      - { name: a, plugin: tools, action: echo }\n',
    );
    writeFileSync(
      join(project, 'workflows', 'report.yaml'),
      'workflows:\n  - name: report\n    steps:\n      - { name: t, type: transform, input: { ok: true } }\n',
    );
    const locked = await weftIn(project, 'workflow', 'lock');
    expect(locked.err).toBe('');
    expect(locked.code).toBe(0);
    const lock = parse(readFileSync(join(project, 'weft.lock'), 'utf8'));
    expect(Object.keys(lock.workflows)).toEqual(['orders', 'report']);
    expect(lock.workflows.orders).toMatchObject({
      file: 'workflows/orders.yaml',
      plugins: { tools: { version: '1.0.0', source: 'plugins/tools.yaml' } },
    });
    const workflows = join(project, 'workflows');
    expect((await weftIn(workflows, 'workflow', 'run', 'orders')).code).toBe(0);
    appendFileSync(join(project, 'plugins', 'tools.yaml'), '# changed\n');
    const refused = await weftIn(workflows, 'workflow', 'run', 'orders');
    expect(refused.code).toBe(2);
    expect(refused.err).toContain(`${join(project, 'weft.lock')}: a checksum or version differs`);
    expect(refused.err).toContain('plugin tools of workflow orders: locked 1.0.0');
  });
});
