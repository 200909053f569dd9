import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '@weft/server';

// Follows the docs as a new user does, in order: the registry quickstart (docs/quickstarts.md),
// then the local runs of the CLI guide (docs/commands.md), in one project folder, then the
// README's own quickstart. The documents' own lines run under bash: the test
// only stands in for `npm start` (a server on a free port, SQLite in ./.weft) and for `npx weft`
// (this checkout's bin, so npx never fetches anything).

const root = fileURLToPath(new URL('../../', import.meta.url));
const README_SERVER = 'http://127.0.0.1:8080';

/**
 * The commands of the first `sh` block after `heading` in `document` (a path from the
 * repository root): comments dropped, `\` lines joined.
 */
function commandsUnder(document: string, heading: string): string[] {
  const text = readFileSync(join(root, document), 'utf8');
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`${document} has no heading ${heading}`);
  const open = text.indexOf('```sh\n', start) + '```sh\n'.length;
  const body = text.slice(open, text.indexOf('\n```', open));
  return body
    .replaceAll('\\\n', ' ')
    .split('\n')
    .map((line) => line.replace(/\s+# .*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

interface Step {
  command: string;
  output: string;
}

/**
 * Runs `commands` in one bash (`set -e`: the first failure stops it) in `cwd`, each output
 * captured apart; gives the exit status and the steps that ran.
 */
async function bash(
  commands: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; steps: Step[]; stderr: string }> {
  const bin = join(root, 'packages/cli/bin/weft.js');
  const script = [
    'set -euo pipefail',
    `npx() { if [ "$1" = weft ]; then shift; node ${JSON.stringify(bin)} "$@"; else echo "npx $1: not in the documented steps" >&2; return 127; fi; }`,
    ...commands.flatMap((command, index) => [`echo "::step ${index}::"`, command]),
  ].join('\n');
  const result = await new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
    execFile('bash', ['-c', script], { cwd, env, maxBuffer: 16 << 20 }, (error, stdout, stderr) =>
      done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
  const parts = result.stdout.split(/::step (\d+)::\n/);
  const steps: Step[] = [];
  for (let i = 1; i < parts.length; i += 2)
    steps.push({ command: commands[Number(parts[i])]!, output: parts[i + 1] ?? '' });
  return { code: result.code, steps, stderr: result.stderr };
}

const project = mkdtempSync(join(tmpdir(), 'weft-readme-'));
let server: RunningServer;
const env = (): NodeJS.ProcessEnv => {
  const { WORKFLOW_REGISTRY_URL, WORKFLOW_REGISTRY_API_KEY, WORKFLOW_CLOUD_URL, ...rest } =
    process.env;
  void [WORKFLOW_REGISTRY_URL, WORKFLOW_REGISTRY_API_KEY, WORKFLOW_CLOUD_URL];
  return { ...rest, NO_COLOR: '1' };
};

beforeAll(async () => {
  symlinkSync(join(root, 'examples'), join(project, 'examples'));
  server = await startServer({ port: 0, dataDir: join(project, '.weft'), logLevel: 'silent' });
});
afterAll(async () => {
  await server?.close();
  rmSync(project, { recursive: true, force: true });
});

describe('the quickstarts of the docs, followed in order', { timeout: 300_000 }, () => {
  it('the plugin registry: publish the examples, search, install --save, list, verify, update, deprecate, unpublish', async () => {
    const commands = commandsUnder('docs/quickstarts.md', '## Quickstart: the plugin registry');
    expect(commands[0]).toBe('npm start');
    const steps = commands.slice(1).map((c) => c.replaceAll(README_SERVER, server.url));
    const { code, steps: ran, stderr } = await bash(steps, project, env());
    expect(stderr).not.toMatch(/error/i);
    expect(code).toBe(0);
    expect(ran).toHaveLength(steps.length);
    const output = (prefix: string) => ran.find((s) => s.command.startsWith(prefix))!.output;
    expect(output('npx weft plugin search issues')).toContain('github');
    expect(output('npx weft plugin install github --save')).toContain('plugins/github.yaml');
    expect(output('npx weft plugin list')).toMatch(/github\s+2\.3\.1\s+http:\/\/127\.0\.0\.1:\d+/);
    expect(existsSync(join(project, 'plugins', 'github.yaml'))).toBe(true);
    expect(existsSync(join(project, 'plugins', '.weft', 'installed.json'))).toBe(true);
    // Only what .gitignore keeps out of a clone: the server's data, installed plugins, scratch.
    expect(readdirSync(project).sort()).toEqual(['.weft', 'examples', 'plugins', 'scratch']);
    for (const ignored of ['/plugins/', '/scratch/', '.weft/'])
      expect(readFileSync(join(root, '.gitignore'), 'utf8').split('\n')).toContain(ignored);
  });

  it('then the local runs of `weft workflow run`, with the installed plugin in ./plugins', async () => {
    const commands = commandsUnder('docs/commands.md', '## `weft workflow run <file>`').filter(
      (command) =>
        // The lines with placeholder files (flow.yaml, order.json, token.jwt) show syntax only.
        [...command.matchAll(/(?:^|\s)@?((?:examples\/)?[\w./-]+\.(?:ya?ml|json|jwt))/g)].every(
          ([, file]) => existsSync(join(project, file!)),
        ),
    );
    expect(commands.length).toBeGreaterThanOrEqual(3);
    const { code, steps, stderr } = await bash(commands, project, env());
    expect(withoutMockNotes(stderr)).toBe('');
    expect(code).toBe(0);
    expect(steps).toHaveLength(commands.length);
    for (const step of steps.filter((s) => !s.command.includes('--stream')))
      expect(step.output).toMatch(/ completed in \d+ ms \(execution [0-9a-f-]{36}\)/);
  });

  it("then the README's own quickstart: validate, run and test examples/hello.json, a dry run", async () => {
    const commands = commandsUnder('README.md', '## Quickstart: a workflow in five minutes');
    expect(commands).toHaveLength(4);
    const before = readdirSync(project).sort();
    const { code, steps, stderr } = await bash(commands, project, env());
    expect(withoutMockNotes(stderr)).toBe('');
    expect(stderr).toMatch(/^dry run: step \S+ mocked \(/m);
    expect(code).toBe(0);
    expect(steps.map((s) => s.output)).toEqual([
      expect.stringContaining('ok examples/hello.json'),
      expect.stringMatching(/greeting: "Hello, Ada!"\n\s+words: 2/),
      expect.stringContaining('2 passed, 0 failed'),
      expect.stringMatching(/^daily-sales-report completed in \d+ ms/),
    ]);
    expect(readdirSync(project).sort()).toEqual(before);
  });
});

/** Stderr without the lines a dry run prints for each step it mocked (the only ones expected). */
function withoutMockNotes(stderr: string): string {
  return stderr
    .split('\n')
    .filter((line) => !/^dry run: step \S+ mocked \(/.test(line))
    .join('\n')
    .trim();
}
