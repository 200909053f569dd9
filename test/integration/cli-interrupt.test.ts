/**
 * Ctrl-C and timeouts of `weft workflow run`, with real processes: the CLI is spawned, the shell
 * connector's command writes its process group id, and the test checks that the group is gone.
 * With `--cloud`, an interrupted run keeps running on the server and the CLI names the commands
 * that follow or cancel it.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createConnectorService, type ConnectorService } from '@weft/sdk/service';
import { createLocalKey, startServer, type RunningServer } from '@weft/server';
import { root, waitFor } from './router-support.js';

const weft = `${root}node_modules/.bin/weft`;
const work = mkdtempSync(join(tmpdir(), 'weft-interrupt-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A folder with a shell connector whose command writes its process group id, then sleeps. */
function project(name: string, timeoutSeconds: number) {
  const dir = join(work, name);
  mkdirSync(join(dir, 'plugins'), { recursive: true });
  const pidFile = join(dir, 'group.pid');
  writeFileSync(
    join(dir, 'plugins', 'sleeper.yaml'),
    [
      'connector:',
      '  kind: shell',
      '  name: sleeper',
      '  namespace: test',
      '  version: 1.0.0',
      `  timeout: ${timeoutSeconds}`,
      'actions:',
      '  - name: hold',
      // `sh` leads the group (its pid is the group id); the two sleeps are its children.
      `    command: [sh, -c, 'echo $$ > "$0"; sleep 300 & sleep 300; wait', ${JSON.stringify(pidFile)}]`,
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(dir, 'flow.yaml'),
    'workflows:\n  - name: held\n    steps:\n      - { id: hold, plugin: sleeper, action: hold, input: {} }\n',
  );
  return { dir, pidFile };
}

/** The CLI as a child process; `exited` resolves with its status and output. */
function runCli(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  const child = spawn(weft, args, { cwd, env: { ...process.env, NO_COLOR: '1', ...env } });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<{ code: number | null; out: string; err: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, out, err })),
  );
  return { child, exited, err: () => err };
}

/** Whether any process of group `pgid` is alive. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

async function groupOf(pidFile: string): Promise<number> {
  await waitFor(
    async () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '',
    30_000,
    'the command to start',
  );
  return Number(readFileSync(pidFile, 'utf8').trim());
}

describe('weft workflow run interrupted, over real processes', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    'on %s kills the shell command process group, names the interrupted step and exits %i',
    async (signal, status) => {
      const { dir, pidFile } = project(signal, 600);
      const run = runCli(['workflow', 'run', 'flow.yaml'], dir);
      const pgid = await groupOf(pidFile);
      expect(groupAlive(pgid)).toBe(true);
      run.child.kill(signal);
      const { code, err } = await run.exited;
      expect(code, err).toBe(status);
      expect(err).toContain(
        `weft: interrupted by ${signal}: canceling workflow "held"; interrupted step: hold`,
      );
      await waitFor(async () => !groupAlive(pgid), 5000, 'the process group to die');
    },
    60_000,
  );

  it('kills the process group when the step times out', async () => {
    const { dir, pidFile } = project('timeout', 1);
    const run = runCli(['workflow', 'run', 'flow.yaml'], dir);
    const pgid = await groupOf(pidFile);
    const { code, out } = await run.exited;
    expect(code).toBe(1);
    expect(out).toContain('TIMEOUT');
    await waitFor(async () => !groupAlive(pgid), 5000, 'the process group to die');
  }, 60_000);
});

describe('weft workflow run interrupted while busy', () => {
  it.each([false, true])(
    'ends a for_each whose items all settle at once within the grace of SIGTERM (parallel: %s)',
    async (parallel) => {
      const dir = join(work, `busy-${parallel}`);
      mkdirSync(dir, { recursive: true });
      const marker = join(dir, 'started');
      // Every call settles at once: a loop that never gave the event loop a turn would see the
      // signal only after its 3,000,000 items.
      writeFileSync(
        join(dir, 'handlers.mjs'),
        [
          "import { writeFileSync } from 'node:fs';",
          'let calls = 0;',
          'export default (weft) => {',
          "  weft.registerHandler('busy.items', async () => ({ items: new Array(3_000_000).fill(1) }));",
          "  weft.registerHandler('busy.touch', async (input) => {",
          `    if (++calls === 1000) writeFileSync(${JSON.stringify(marker)}, 'x');`,
          '    return input.n;',
          '  });',
          '};',
          '',
        ].join('\n'),
      );
      writeFileSync(
        join(dir, 'flow.yaml'),
        [
          'workflows:',
          '  - name: busy',
          '    steps:',
          '      - { id: make, plugin: busy, action: items, input: {} }',
          `      - { id: each, plugin: busy, action: touch, for_each: '{{ steps.make.output.items }}', parallel: ${parallel}, input: { n: '{{ item }}' } }`,
          '',
        ].join('\n'),
      );
      const run = runCli(['workflow', 'run', 'flow.yaml', '--require', './handlers.mjs'], dir, {
        WEFT_MAX_FOR_EACH_ITEMS: '5000000',
      });
      await waitFor(async () => existsSync(marker), 30_000, 'the for_each to start');
      run.child.kill('SIGTERM');
      const { code, out, err } = await run.exited;
      expect(code, err).toBe(143);
      expect(err).toContain('weft: interrupted by SIGTERM: canceling workflow "busy"');
      expect(out).toContain('canceled');
    },
    60_000,
  );

  it('refuses a for_each over WEFT_MAX_FOR_EACH_ITEMS before any item runs', async () => {
    const dir = join(work, 'bounded');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'flow.yaml'),
      "workflows:\n  - name: bounded\n    steps:\n      - { id: each, type: transform, for_each: [1, 2, 3], input: { n: '{{ item }}' } }\n",
    );
    const refused = await runCli(['workflow', 'run', 'flow.yaml'], dir, {
      WEFT_MAX_FOR_EACH_ITEMS: '2',
    }).exited;
    expect(refused.code, refused.err).toBe(1);
    expect(refused.out).toContain('over the limit of 2');
    const invalid = await runCli(['workflow', 'run', 'flow.yaml'], dir, {
      WEFT_MAX_FOR_EACH_ITEMS: 'lots',
    }).exited;
    expect(invalid.code).toBe(2);
    expect(invalid.err).toContain('WEFT_MAX_FOR_EACH_ITEMS must be a positive integer');
  }, 60_000);
});

describe('weft workflow run --cloud interrupted', () => {
  let server: RunningServer;
  let service: ConnectorService;
  let key: string;
  const dir = join(work, 'cloud');
  let started: () => void = () => undefined;
  let aborted: () => void = () => undefined;

  afterAll(async () => {
    await service?.close();
    await server?.close();
  });

  it('leaves the execution running, prints its id and the commands that follow or cancel it', async () => {
    mkdirSync(dir, { recursive: true });
    server = await startServer({
      port: 0,
      host: '127.0.0.1',
      dataDir: join(dir, 'data'),
      logLevel: 'error',
    });
    key = (await createLocalKey({ dataDir: join(dir, 'data') }, { name: 'cli' })).key;
    service = await createConnectorService({
      connector: {
        connector: { kind: 'function', name: 'holder', namespace: 'test', version: '1.0.0' },
        actions: [{ name: 'hold' }],
      },
      handlers: {
        hold: (_input: unknown, context: { signal: AbortSignal }) =>
          new Promise((_, reject) => {
            started();
            context.signal.addEventListener('abort', () => {
              aborted();
              reject(context.signal.reason as Error);
            });
          }),
      },
      routerUrl: server.url,
      handleSignals: false,
      logger: pino({ level: 'silent' }),
    });
    writeFileSync(
      join(dir, 'flow.yaml'),
      'workflows:\n  - name: held\n    steps:\n      - { id: hold, plugin: holder, action: hold, input: {} }\n',
    );
    const running = new Promise<void>((resolve) => (started = resolve));
    const env = { WORKFLOW_REGISTRY_API_KEY: key };
    const run = runCli(
      ['workflow', 'run', 'flow.yaml', '--cloud', '--server', server.url],
      dir,
      env,
    );
    await running;
    run.child.kill('SIGINT');
    const { code, err } = await run.exited;
    expect(code, err).toBe(130);
    const id = /execution (\S+) of workflow "held" runs on at/.exec(err)?.[1];
    expect(id, err).toBeDefined();
    expect(err).toContain(`follow it: weft execution wait ${id} --server ${server.url}`);
    expect(err).toContain(`cancel it: weft execution cancel ${id} --server ${server.url}`);

    const record = await fetch(`${server.url}/workflows/executions/${id}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(((await record.json()) as { status: string }).status).toBe('running');

    const handlerAborted = new Promise<void>((resolve) => (aborted = resolve));
    const cancel = runCli(['execution', 'cancel', id!, '--server', server.url], dir, env);
    const canceled = await cancel.exited;
    expect(canceled.code, canceled.err).toBe(0);
    expect(canceled.out).toMatch(new RegExp(`^execution ${id} canceled at `));
    await handlerAborted;
    const waited = await runCli(['execution', 'wait', id!, '--server', server.url], dir, env)
      .exited;
    expect(waited.code).toBe(1);
    expect(waited.out).toContain(`execution ${id} canceled (CANCELED:`);
  }, 60_000);
});
