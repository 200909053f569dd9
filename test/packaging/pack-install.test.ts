/**
 * The published packages work outside this repository: every workspace package is packed
 * (`npm pack`), the tarballs are installed into a scratch project in the OS temp directory, its
 * `npx weft init app` writes a project, and in that project `npm install` (of the tarballs),
 * `npm test` and `npm run dev` pass: what docs/projects.md tells a user to do.
 *
 * Third-party dependencies come from the npm registry (or npm's cache); the test is skipped, saying
 * why, only when npm cannot reach the registry. It needs the packages built (`npm run build`,
 * which `npm ci` runs through `prepare`).
 */
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The environment of the npm commands: none of the `npm test` run's own npm settings. */
const env = Object.fromEntries(
  Object.entries(process.env).filter(
    ([key]) => !/^npm_/i.test(key) && key !== 'INIT_CWD' && key !== 'NODE_OPTIONS',
  ),
);

/** Runs `command ...args` in `cwd`; resolves to its stdout, rejects with its output on failure. */
async function sh(cwd: string, command: string, ...args: string[]): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)(command, args, {
      cwd,
      env,
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const e = error as { message: string; stdout?: string; stderr?: string };
    throw new Error(
      `${command} ${args.join(' ')} (in ${cwd}) failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`,
    );
  }
}

/** Why the registry cannot be used, or undefined when `npm ping` answers. */
async function registryUnreachable(): Promise<string | undefined> {
  try {
    await promisify(execFile)('npm', ['ping'], { env, timeout: 30_000 });
    return undefined;
  } catch (error) {
    return (error as Error).message.split('\n')[0];
  }
}

const unreachable = await registryUnreachable();
if (unreachable !== undefined)
  console.warn(
    `skipping the pack-and-install test: npm cannot reach its registry (${unreachable})`,
  );

/**
 * `npm install` of the tarballs. Install scripts are not run: the only one, better-sqlite3's,
 * would compile SQLite from source where its prebuilt binaries cannot be downloaded, and
 * nothing here opens a database (`weft server` does).
 */
const INSTALL = ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts'];

interface Packed {
  name: string;
  filename: string;
  files: { path: string }[];
}

describe.skipIf(unreachable !== undefined)('the packed packages', { timeout: 600_000 }, () => {
  const scratch = mkdtempSync(join(tmpdir(), 'weft-pack-'));
  // Two node_modules of some 250 packages each take minutes to delete on a slow disk: a
  // detached process deletes them while the suite goes on.
  afterAll(() => {
    const remove = `require('node:fs').rmSync(${JSON.stringify(scratch)}, { recursive: true, force: true })`;
    spawn(process.execPath, ['-e', remove], { detached: true, stdio: 'ignore' }).unref();
  });
  const times: Record<string, number> = {};
  const timed = async <T>(step: string, body: () => Promise<T>): Promise<T> => {
    const started = Date.now();
    try {
      return await body();
    } finally {
      times[step] = Date.now() - started;
    }
  };

  it('install outside the repository, and weft init makes a project whose npm test and npm run dev pass', async () => {
    const packs = join(scratch, 'packs');
    mkdirSync(packs);
    const packed = JSON.parse(
      await timed('npm pack', () =>
        sh(root, 'npm', 'pack', '--workspaces', '--json', '--pack-destination', packs),
      ),
    ) as Packed[];
    const workspaces = readdirSync(join(root, 'packages'));
    expect(packed.map((p) => p.name).sort()).toEqual(workspaces.map((w) => `@weft/${w}`).sort());
    for (const { name, files } of packed) {
      const paths = files.map((f) => f.path);
      expect(paths, name).toContain('README.md');
      expect(paths, name).toContain('LICENSE');
      expect(
        paths.some((p) => p.startsWith('dist/')),
        name,
      ).toBe(true);
      expect(
        paths.filter((p) => /\.map$|\.test\.|^src\/|tsbuildinfo/.test(p)),
        name,
      ).toEqual([]);
    }
    const tarballs = packed.map((p) => join(packs, p.filename));

    // A project of one's own, outside the repository, with the tarballs installed.
    const project = join(scratch, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), '{ "name": "scratch", "private": true }\n');
    await timed('npm install (scratch)', () => sh(project, 'npm', ...INSTALL, ...tarballs));
    const init = await timed('npx weft init app', () => sh(project, 'npx', 'weft', 'init', 'app'));
    expect(init).toContain('created a weft project in app');

    // The new project: its @weft dependencies are the tarballs (not published yet).
    const app = join(project, 'app');
    await timed('npm install (app)', () => sh(app, 'npm', ...INSTALL, ...tarballs));
    const test = await timed('npm test', () => sh(app, 'npm', 'test'));
    expect(test).toContain('pass hello › greets-ada');
    expect(test).toContain('1 passed, 0 failed');
    const dev = await timed('npm run dev', () => sh(app, 'npm', 'run', 'dev'));
    expect(dev).toMatch(/hello completed in \d+ ms/);
    expect(dev).toContain('message: "HELLO, WORLD!"');
    expect(dev).toContain('letters: 10');
    console.log(
      `pack-and-install: ${Object.entries(times)
        .map(([step, ms]) => `${step} ${(ms / 1000).toFixed(1)} s`)
        .join(', ')}`,
    );
  });
});
