import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localPrincipal, Weft } from '@weft/sdk';

// Follows docs/tutorial.md with its own files and commands: the connector, handlers, workflows
// and service it shows are written to a project folder as they are printed, the local run goes
// through the SDK (as `weft workflow run` does), and the server steps run the tutorial's shell
// lines under bash against a real `weft server` and the tutorial's own service.ts (run by tsx).
// `weft init` (step 1) is not run here.

const root = fileURLToPath(new URL('../../', import.meta.url));
const tutorial = readFileSync(join(root, 'docs/tutorial.md'), 'utf8');
const bin = join(root, 'packages/cli/bin/weft.js');
const TUTORIAL_SERVER = 'http://127.0.0.1:8080';

/** The section of the tutorial under the heading that starts with `heading`. */
function section(heading: string): string {
  const start = tutorial.indexOf(`\n${heading}`);
  if (start < 0) throw new Error(`docs/tutorial.md has no heading ${heading}`);
  const end = tutorial.indexOf('\n## ', start + 1);
  return tutorial.slice(start, end < 0 ? undefined : end);
}

/** The code blocks of `lang` in `text`. */
function blocks(text: string, lang: string): string[] {
  return [...text.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)\\n```', 'g'))].map(
    ([, body]) => `${body}\n`,
  );
}

/** The block of `lang` in the tutorial that contains `marker`. */
function block(lang: string, marker: string): string {
  const found = blocks(tutorial, lang).filter((b) => b.includes(marker));
  if (found.length !== 1) throw new Error(`${found.length} ${lang} blocks hold ${marker}`);
  return found[0]!;
}

/** Shell lines of `text`'s sh blocks: comments dropped, `\` lines joined. */
function commands(text: string): string[] {
  return blocks(text, 'sh')
    .join('\n')
    .replaceAll('\\\n', ' ')
    .split('\n')
    .map((line) => line.replace(/\s+# .*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

const project = mkdtempSync(join(tmpdir(), 'weft-tutorial-'));
const children: ChildProcess[] = [];
const SECRET = 'a tutorial webhook secret of 32+ bytes, not a real one';

/** Starts `command` in the project and resolves with the first match of `ready` on stdout. */
function start(command: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp) {
  const child = spawn(command, args, { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = ready.exec(out);
      if (match) resolve(match[1]!);
    });
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}: ${out}`)));
  });
}

beforeAll(() => {
  mkdirSync(join(project, 'plugins'));
  mkdirSync(join(project, 'workflows'));
  symlinkSync(join(root, 'node_modules'), join(project, 'node_modules'));
  // Step 1's `weft init` (its project is an ES module package; test/packaging runs init itself).
  expect(section('## 1.')).toContain('npx weft init refunds');
  writeFileSync(join(project, 'package.json'), '{ "name": "refunds", "type": "module" }\n');
  writeFileSync(join(project, 'plugins/refunds.yaml'), block('yaml', 'kind: function'));
  writeFileSync(join(project, 'workflows/refunds.yaml'), block('yaml', 'name: refunds-digest'));
  writeFileSync(join(project, 'refunds.ts'), block('ts', 'export default function register'));
  writeFileSync(join(project, 'service.ts'), block('ts', 'createConnectorService'));
});
afterAll(() => {
  for (const child of children) child.kill('SIGTERM');
  rmSync(project, { recursive: true, force: true });
});

describe('docs/tutorial.md, followed', { timeout: 120_000 }, () => {
  it('3: runs the refund locally with the handlers, as the support role, approved up front', async () => {
    const handlers = (await import(pathToFileURL(join(project, 'refunds.ts')).href)) as {
      default: (weft: Weft) => void;
    };
    const weft = new Weft({
      identity: localPrincipal({ roles: ['support'] }),
      approve: () => true,
      inheritEnvironment: false,
    });
    await weft.loadConnectors(join(project, 'plugins'));
    handlers.default(weft);
    await weft.loadWorkflows(join(project, 'workflows/refunds.yaml'));
    const payload = /--payload '([^']+)'/.exec(section('## 3.'))![1]!;
    const result = await weft.execute('refund', {}, { trigger: { payload: JSON.parse(payload) } });
    expect(result.status).toBe('completed');
    expect(result.outputs).toEqual({ refund: 36, reference: 'RF-A-1001-1' });
  });

  it('4-6: deploys, fires the signed webhook and approves the refund, through service.ts', async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NO_COLOR: '1',
      DATABASE_URL: '',
      REFUNDS_WEBHOOK_SECRET: SECRET,
    };
    for (const name of ['WORKFLOW_REGISTRY_URL', 'WORKFLOW_REGISTRY_API_KEY', 'WORKFLOW_CLOUD_URL'])
      delete env[name];
    const url = await start(
      process.execPath,
      [bin, 'server', '--port', '0', '--log-level', 'info'],
      env,
      /listening on (http:\/\/[0-9.:]+)/,
    );
    await start(
      join(root, 'node_modules/.bin/tsx'),
      ['service.ts'],
      { ...env, PORT: '0', WORKFLOW_ROUTER_URL: url },
      /(refunds service listening on \S+)/,
    );
    writeFileSync(join(project, '.webhook-secret'), `${SECRET}\n`);
    const deploy = commands(section('## 4.'));
    const steps = [
      ...deploy.slice(deploy.indexOf('export WORKFLOW_REGISTRY_URL=http://127.0.0.1:8080')),
      ...commands(section('## 5.')).map((c) =>
        c.startsWith('curl') ? `${c} | tee webhook.json` : c,
      ),
      ...commands(section('## 6.')),
    ].map((c) =>
      c
        .replaceAll(TUTORIAL_SERVER, url)
        .replaceAll('<execution-id>', '"$(node -p "require(\'./webhook.json\').execution_id")"'),
    );
    const script = [
      'set -euo pipefail',
      `npx() { if [ "$1" = weft ]; then shift; node ${JSON.stringify(bin)} "$@"; else return 127; fi; }`,
      ...steps,
    ].join('\n');
    const { code, stdout, stderr } = await new Promise<{
      code: number;
      stdout: string;
      stderr: string;
    }>((done) =>
      execFile('bash', ['-c', script], { cwd: project, env }, (error, out, err) =>
        done({ code: error ? Number(error.code ?? 1) : 0, stdout: out, stderr: err }),
      ),
    );
    expect(stderr).not.toMatch(/error/i);
    expect(code).toBe(0);
    const answer = JSON.parse(readFileSync(join(project, 'webhook.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(answer).toMatchObject({ status: 'waiting', workflow: 'refund', trigger: 'webhook' });
    expect(stdout).toContain('deployed refund 1.0.0, revision 1');
    expect(stdout).toMatch(/webhook: POST \/hooks\/refunds/);
    expect(stdout).toMatch(new RegExp(`${String(answer['execution_id'])}  refund +start +shop `));
    expect(stdout).toContain(`execution ${String(answer['execution_id'])} completed`);
    expect(stdout).toContain('outputs: {"refund":36,"reference":"RF-A-1001-1"}');
  });
});
