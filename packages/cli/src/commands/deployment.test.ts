import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalKey, startServer, type RunningServer } from '@weft/server';
import { run, runAnswering } from '../test-support.js';

const dir = mkdtempSync(join(tmpdir(), 'weft-deployment-'));
const NIGHTLY = {
  name: 'nightly',
  version: '1.2.0',
  description: 'adds up',
  inputs: { a: { type: 'number', default: 1 }, b: { type: 'number', default: 2 } },
  triggers: [
    { type: 'manual' },
    { type: 'schedule', cron: '0 3 * * *', timezone: 'UTC' },
    { type: 'webhook', path: '/nightly' },
  ],
  steps: [{ name: 'sum', type: 'transform', input: { total: '{{ inputs.a + inputs.b }}' } }],
  outputs: { total: { value: '{{ steps.sum.output.total }}' } },
};
const FAILING = {
  name: 'failing',
  inputs: { o: { type: 'object', default: {} } },
  steps: [{ name: 'boom', type: 'transform', input: { x: '{{ inputs.o.a.b }}' } }],
};

let server: RunningServer;
let key: string;

async function deploy(definition: { name: string; [key: string]: unknown }): Promise<void> {
  const answer = await fetch(`${server.url}/workflows/${definition.name}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(definition),
  });
  if (answer.status >= 300) throw new Error(`deploy ${definition.name}: ${await answer.text()}`);
}

beforeAll(async () => {
  server = await startServer(
    { port: 0, dataDir: join(dir, 'data'), logLevel: 'silent' },
    { logger: false },
  );
  key = (await createLocalKey({ dataDir: join(dir, 'data') }, { name: 'acme' })).key;
  await deploy(NIGHTLY);
  await deploy({ ...NIGHTLY, version: '1.3.0' });
  await deploy(FAILING);
}, 30_000);
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const on = () => ['--server', server.url, '--api-key', key];

describe('weft deployment list', () => {
  it('prints a table of name, revision, version, triggers and last deployment; --json the answer', async () => {
    const listed = await run('deployment', 'list', ...on());
    expect(listed.err).toBe('');
    expect(listed.code).toBe(0);
    const lines = listed.out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+REVISION\s+VERSION\s+TRIGGERS\s+UPDATED$/);
    expect(lines.find((l) => l.startsWith('nightly'))).toMatch(
      /^nightly\s+2\s+1\.3\.0\s+manual,schedule,webhook\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$/,
    );
    expect(lines.find((l) => l.startsWith('failing'))).toMatch(/^failing\s+1\s+\S+\s+manual\s/);

    const json = await run('deployment', 'list', ...on(), '--json');
    const answer = JSON.parse(json.out) as { total: number; workflows: { name: string }[] };
    expect(answer.total).toBe(2);
    expect(answer.workflows.map((w) => w.name).sort()).toEqual(['failing', 'nightly']);
  });
});

describe('weft deployment get', () => {
  it('shows the summary and the schedule’s next fires', async () => {
    const shown = await run('deployment', 'get', 'nightly', ...on());
    expect(shown.code).toBe(0);
    expect(shown.out).toContain('name:        nightly\n');
    expect(shown.out).toContain('revision:    2 (2 in all)\n');
    expect(shown.out).toContain('description: adds up\n');
    expect(shown.out).toContain('inputs:      a, b\n');
    expect(shown.out).toMatch(
      /\n {2}schedule 0 3 \* \* \* \(UTC\): next \d{4}-\d\d-\d\d 03:00:00Z, \S+ 03:00:00Z, \S+ 03:00:00Z\n/,
    );
    expect(shown.out).toContain('\nwebhooks:    POST /hooks/nightly\n');
    expect(shown.out).toMatch(
      /\nrevisions:\n {2}2 {2}1\.3\.0 {2}\S+ \S+Z {2}api\n {2}1 {2}1\.2\.0 /,
    );
  });

  it('--yaml prints the deployed definition, --json the whole answer', async () => {
    const yaml = await run('deployment', 'get', 'nightly', ...on(), '--yaml');
    expect(yaml.code).toBe(0);
    expect(yaml.out).toMatch(/^name: nightly\nversion: 1\.3\.0\n/);
    expect(yaml.out).toContain('cron: 0 3 * * *\n');
    const json = await run('deployment', 'get', 'nightly', ...on(), '--json');
    expect(JSON.parse(json.out)).toMatchObject({
      name: 'nightly',
      revision: 2,
      definition: { name: 'nightly', version: '1.3.0' },
    });
    const both = await run('deployment', 'get', 'nightly', ...on(), '--json', '--yaml');
    expect(both.code).toBe(2);
  });

  it('shows the server’s 404 for an unknown name (2) and says when the server is down (1)', async () => {
    const unknown = await run('deployment', 'get', 'nope', ...on());
    expect(unknown.code).toBe(2);
    expect(unknown.out).toBe('');
    expect(unknown.err).toMatch(/^error: .*nope.* \[NOT_FOUND\]\n$/);

    const down = await run(
      'deployment',
      'list',
      '--server',
      'http://127.0.0.1:1',
      '--api-key',
      key,
    );
    expect(down.code).toBe(1);
    expect(down.err).toMatch(/cannot reach the server at http:\/\/127\.0\.0\.1:1.*\[UNAVAILABLE\]/);
  });
});

describe('weft deployment run', () => {
  it('starts a run with -i and --input-file and prints the execution id', async () => {
    const inputs = join(dir, 'inputs.yaml');
    writeFileSync(inputs, 'a: 10\nb: 5\n');
    const started = await run(
      'deployment',
      'run',
      'nightly',
      ...on(),
      '--input-file',
      inputs,
      '-i',
      'b=7',
    );
    expect(started.code).toBe(0);
    const id = started.out.trim();
    expect(id).toMatch(/^[\w-]+$/);
    expect(started.err).toBe(`follow it: weft execution events ${id} --follow\n`);
    const waited = await run('execution', 'wait', id, ...on(), '-o', 'json');
    expect(JSON.parse(waited.out)).toMatchObject({
      status: 'completed',
      result: { outputs: { total: 17 } },
    });
  });

  it('--follow prints the events until the end and exits with the run’s outcome', async () => {
    const ok = await run('deployment', 'run', 'nightly', ...on(), '--follow');
    expect(ok.code).toBe(0);
    const events = ok.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; data: object });
    expect(events.at(-1)).toMatchObject({
      type: 'workflow.completed',
      data: { status: 'completed' },
    });
    expect(ok.err).toMatch(/^execution \S+\nexecution \S+ completed\n$/);

    const failed = await run('deployment', 'run', 'failing', ...on(), '--follow');
    expect(failed.code).toBe(1);
    expect(failed.err).toMatch(/ failed\n$/);
  });

  it('refuses bad inputs (2) and an unknown name with the server’s 404 (2)', async () => {
    const unknown = await run('deployment', 'run', 'nope', ...on());
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/\[NOT_FOUND\]\n$/);
    const list = join(dir, 'list.yaml');
    writeFileSync(list, '- 1\n');
    const notObject = await run('deployment', 'run', 'nightly', ...on(), '--input-file', list);
    expect(notObject).toMatchObject({
      code: 2,
      err: `error: --input-file ${list}: expected an object of inputs (key: value)\n`,
    });
    const badType = await run('deployment', 'run', 'nightly', ...on(), '-i', 'a="x"');
    expect(badType.code).toBe(2);
    expect(badType.err).toContain('[VALIDATION]');
  });
});

describe('weft deployment delete', () => {
  it('refuses without --yes when stdin is not a terminal, and deletes with it', async () => {
    await deploy({ ...FAILING, name: 'doomed' });
    const refused = await run('deployment', 'delete', 'doomed', ...on());
    expect(refused).toMatchObject({
      code: 2,
      out: '',
      err: 'error: not undeploying doomed: stdin is not a terminal to confirm on; add --yes\n',
    });
    expect((await run('deployment', 'get', 'doomed', ...on())).code).toBe(0);
    const deleted = await run('deployment', 'delete', 'doomed', ...on(), '--yes');
    expect(deleted).toMatchObject({ code: 0, out: 'undeployed doomed\n' });
    expect((await run('deployment', 'get', 'doomed', ...on())).code).toBe(2);
    const again = await run('deployment', 'delete', 'doomed', ...on(), '--yes');
    expect(again.code).toBe(2);
    expect(again.err).toMatch(/\[NOT_FOUND\]\n$/);
  });

  it('asks on a terminal: anything but yes keeps it', async () => {
    await deploy({ ...FAILING, name: 'asked' });
    const kept = await runAnswering(['n'], 'deployment', 'delete', 'asked', ...on());
    expect(kept).toMatchObject({ code: 1, err: 'not undeployed: asked\n' });
    expect(kept.asked).toEqual(['undeploy asked? Its triggers stop (history is kept) [y/N] ']);
    const gone = await runAnswering(['y'], 'deployment', 'delete', 'asked', ...on());
    expect(gone).toMatchObject({ code: 0, out: 'undeployed asked\n' });
  });
});
