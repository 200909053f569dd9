import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../test-support.js';

const cli = fileURLToPath(new URL('../../', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'weft-init-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

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

describe('weft init', { timeout: 60_000 }, () => {
  const app = join(scratch, 'my-app');

  it('writes a project whose workflow validates, whose fixture passes and which runs', async () => {
    const init = await run('init', app);
    expect(init.err).toBe('');
    expect(init.code).toBe(0);
    expect(init.out).toContain('npm install');
    const manifest = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8'));
    const { version } = JSON.parse(readFileSync(join(cli, 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({
      name: 'my-app',
      type: 'module',
      dependencies: { '@weft/cli': `^${version}`, '@weft/sdk': `^${version}` },
    });
    expect(Object.keys(manifest.scripts)).toEqual(['dev', 'test', 'deploy']);
    expect(readFileSync(join(app, 'workflows/hello.yaml'), 'utf8')).toMatch(
      /^# yaml-language-server: \$schema=\.\.\/node_modules\/@weft\/cli\/schemas\/workflow\.schema\.json\n/,
    );
    const validate = await run('workflow', 'validate', join(app, 'workflows/hello.yaml'));
    expect(validate.code).toBe(0);
    // The scripts' commands, with no flags: weft.config.yaml names the plugins and handlers.
    const test = await weftIn(app, 'workflow', 'test', 'workflows/hello.yaml', '--all-fixtures');
    expect(test.err).toBe('');
    expect(test.out).toContain('1 passed, 0 failed');
    // From a subdirectory: the configuration is found above, its paths are its own.
    const dev = await weftIn(
      join(app, 'workflows'),
      'workflow',
      'run',
      'hello',
      '-i',
      'name=Grace',
      '-o',
      'json',
    );
    expect(dev.code).toBe(0);
    expect(JSON.parse(dev.out)).toMatchObject({
      status: 'completed',
      outputs: { message: 'HELLO, GRACE!', letters: 10 },
    });
  });

  it('refuses a directory that is not empty unless --force', async () => {
    const busy = join(scratch, 'busy');
    mkdirSync(busy);
    writeFileSync(join(busy, 'notes.txt'), 'mine\n');
    const refused = await run('init', busy);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('is not empty (notes.txt)');
    expect(refused.err).toContain('--force');
    const forced = await run('init', busy, '--force');
    expect(forced.code).toBe(0);
    expect(readFileSync(join(busy, 'notes.txt'), 'utf8')).toBe('mine\n');
    expect(JSON.parse(readFileSync(join(busy, 'package.json'), 'utf8')).name).toBe('busy');
  });

  it('refuses a directory name that cannot name a package', async () => {
    const result = await run('init', join(scratch, 'My App'));
    expect(result.code).toBe(2);
    expect(result.err).toContain('"My App" cannot name the project\'s package');
    expect(result.err).toContain('--name');
    expect((await run('init', join(scratch, 'My App'), '--name', 'my-app')).code).toBe(0);
  });
});
