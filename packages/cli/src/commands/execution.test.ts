import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WeftClient } from '@weft/sdk/client';
import { createLocalKey, startServer, type RunningServer } from '@weft/server';
import { followExecution } from '../follow-execution.js';
import { run } from '../test-support.js';

const TWO_STEPS = `workflows:
  - name: double
    inputs:
      n: { type: number, required: true }
    steps:
      - { name: a, type: transform, input: { v: '{{ inputs.n * 2 }}' } }
      - { name: b, type: transform, input: { v: '{{ steps.a.output.v + 1 }}' } }
    outputs:
      v: { value: '{{ steps.b.output.v }}' }
`;
const FAILING = `workflows:
  - name: broken
    steps:
      - { name: first, type: transform, input: { ok: true } }
      - { name: charge, plugin: slow, action: boom, input: {} }
`;
/** `charge` fails its first call only; `receipt` reads what `quote` answered. */
const FLAKY = `workflows:
  - name: flaky
    steps:
      - { name: quote, plugin: slow, action: quote, input: {} }
      - { name: charge, plugin: slow, action: flaky, input: {} }
      - { name: receipt, type: transform, input: { price: '{{ steps.quote.output.price }}' } }
    outputs:
      price: { value: '{{ steps.receipt.output.price }}' }
`;
const SLOW = `workflows:
  - name: slow
    steps:
      - { name: first, plugin: slow, action: wait, input: {} }
      - { name: second, plugin: slow, action: wait, input: {} }
`;
const WAITING = `workflows:
  - name: guarded
    authorization:
      enabled: true
      approval: { required: true, approvers: [lead], timeout: 600 }
    steps:
      - { name: pay, type: transform, input: { paid: true } }
`;

const dir = mkdtempSync(join(tmpdir(), 'weft-cli-executions-'));
let server: RunningServer;
let slow: Server;
let key = '';
let client: WeftClient;
const ids: Record<'done' | 'failed', string> = { done: '', failed: '' };
const calls = { quote: 0, flaky: 0 };

beforeAll(async () => {
  const dataDir = join(dir, 'data');
  server = await startServer({ port: 0, dataDir, logLevel: 'silent' }, { logger: false });
  key = (await createLocalKey({ dataDir }, { name: 'ops', owner: 'acme' })).key;
  client = new WeftClient({ baseUrl: server.url, apiKey: key });
  // A connector whose action answers after 300 ms: runs that are still running when followed.
  slow = createServer((request, response) => {
    if (request.method === 'GET') return void response.end('{"status":"ok"}');
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      response.setHeader('content-type', 'application/json');
      if (body.includes('slow.quote')) {
        calls.quote++;
        return void response.end('{"status":"success","data":{"price":40}}');
      }
      if (body.includes('slow.flaky') && calls.flaky++ === 0) {
        response.statusCode = 400;
        return void response.end(
          '{"status":"error","code":"VALIDATION","message":"declined once","details":{}}',
        );
      }
      if (body.includes('slow.boom')) {
        response.statusCode = 400;
        return void response.end(
          '{"status":"error","code":"VALIDATION","message":"card declined","details":{}}',
        );
      }
      setTimeout(() => response.end('{"status":"success","data":{"waited":true}}'), 300);
    });
  });
  await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
  const registered = await fetch(`${server.url}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      plugin_slug: 'slow',
      version: '1.0.0',
      url: `http://127.0.0.1:${(slow.address() as AddressInfo).port}`,
      actions: ['wait', 'boom', 'quote', 'flaky'],
    }),
  });
  expect(registered.status).toBe(201);
  ids.done = (
    await client.startExecution({ workflow: TWO_STEPS, inputs: { n: 3 }, waitSeconds: 10 })
  ).execution_id;
  ids.failed = (await client.startExecution({ workflow: FAILING, waitSeconds: 10 })).execution_id;
}, 30_000);
afterAll(async () => {
  await server?.close();
  slow?.closeAllConnections();
  await new Promise((resolve) => slow?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const on = () => ['--server', server.url, '--api-key', key];

describe('weft execution list', () => {
  it('prints the executions as a table, filters by status and workflow, -o json the page', async () => {
    const listed = await run('execution', 'list', ...on());
    expect(listed.code, listed.err).toBe(0);
    const [header, ...rows] = listed.out.trim().split('\n');
    expect(header).toMatch(/^EXECUTION\s+WORKFLOW\s+STATUS\s+TRIGGER\s+CREATED\s+DURATION$/);
    expect(rows.join('\n')).toContain(ids.done);
    expect(rows.join('\n')).toContain(ids.failed);
    const failed = await run('execution', 'list', '--status', 'failed', ...on());
    expect(failed.out).toContain(ids.failed);
    expect(failed.out).not.toContain(ids.done);
    const json = await run(
      'execution',
      'list',
      '--workflow',
      'double',
      '--limit',
      '1',
      '-o',
      'json',
      ...on(),
    );
    const page = JSON.parse(json.out) as { executions: { execution_id: string }[] };
    expect(page.executions.map((e) => e.execution_id)).toEqual([ids.done]);
    expect((await run('execution', 'list', '--status', 'nope', ...on())).code).toBe(2);
  });
});

describe('weft execution get', () => {
  it('shows status, outputs and each step with status, attempts and duration', async () => {
    const shown = await run('execution', 'get', ids.done, ...on());
    expect(shown.code, shown.err).toBe(0);
    expect(shown.out).toMatch(/^execution:\s+\S+$/m);
    expect(shown.out).toMatch(/^status:\s+completed$/m);
    expect(shown.out).toMatch(/^outputs:\s+\{"v":7\}$/m);
    expect(shown.out).toMatch(/^STEP\s+STATUS\s+ATTEMPTS\s+DURATION\s+ERROR$/m);
    // Transform steps call nothing: no attempts, not "0".
    expect(shown.out).toMatch(/^a\s+success\s+-\s+\d+ms$/m);
    expect(shown.out).toMatch(/^b\s+success\s+-\s+\d+ms$/m);
  });

  it('shows the error object of a failed execution', async () => {
    const shown = await run('execution', 'get', ids.failed, ...on());
    expect(shown.code).toBe(0);
    expect(shown.out).toMatch(/^status:\s+failed$/m);
    expect(shown.out).toMatch(/^error:\s+VALIDATION: .*card declined/m);
    expect(shown.out).toMatch(/^charge\s+failed\s+1\s+\d+ms\s+VALIDATION: .*card declined$/m);
    const json = JSON.parse((await run('execution', 'get', ids.failed, '-o', 'json', ...on())).out);
    expect(json).toMatchObject({
      execution_id: ids.failed,
      status: 'failed',
      error: { status: 'error' },
    });
  });

  it('answers an unknown id with an error naming it (exit 2)', async () => {
    const unknown = await run('execution', 'get', 'no-such-run', ...on());
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('no-such-run');
    expect(unknown.err).toContain('NOT_FOUND');
  });

  it('needs a server and a key (exit 2)', async () => {
    const none = await run('execution', 'get', ids.done, '--server', server.url, '--api-key', '');
    expect(none.code).toBe(2);
  });
});

describe('weft execution events and logs', () => {
  it('prints the stored events as JSON lines with ids, and resumes after one with --after', async () => {
    const printed = await run('execution', 'events', ids.done, ...on());
    expect(printed.code, printed.err).toBe(0);
    const events = printed.out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; type: string; step_name: string });
    expect(events.map((e) => `${e.type} ${e.step_name}`)).toEqual([
      'step.started a',
      'step.completed a',
      'step.started b',
      'step.completed b',
      'workflow.completed ',
    ]);
    const resumed = await run('execution', 'events', ids.done, '--after', events[2]!.id, ...on());
    expect(
      resumed.out
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: string }).id),
    ).toEqual(events.slice(3).map((e) => e.id));
  });

  it('prints what happened as log lines', async () => {
    const logs = await run('execution', 'logs', ids.done, ...on());
    expect(logs.code, logs.err).toBe(0);
    const lines = logs.out.trim().split('\n');
    expect(lines[0]).toMatch(/^\S+Z {2}a {2}started$/);
    expect(lines[1]).toMatch(/^\S+Z {2}a {2}completed in \d+ms$/);
    expect(lines.at(-1)).toMatch(/^\S+Z {2}- {2}workflow completed in \d+ms$/);
    const failed = await run('execution', 'logs', ids.failed, ...on());
    expect(failed.out).toMatch(/ {2}charge {2}failed in \d+ms: VALIDATION: .*card declined/);
    expect(failed.out).toMatch(/workflow failed in \d+ms: VALIDATION: .*card declined/);
  });

  it('--follow prints new events until the run ends; exit 0 completed, 1 failed', async () => {
    const started = await client.startExecution({ workflow: SLOW });
    const followed = await run('execution', 'events', started.execution_id, '--follow', ...on());
    expect(followed.code, followed.err).toBe(0);
    const types = followed.out
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { type: string }).type);
    expect(types.at(-1)).toBe('workflow.completed');
    expect(types.filter((t) => t === 'step.completed')).toHaveLength(2);
    expect((await run('execution', 'events', ids.failed, '--follow', ...on())).code).toBe(1);
    expect((await run('execution', 'logs', ids.failed, '--follow', ...on())).code).toBe(1);
  });

  it('draws a live step list on a terminal: spinner while running, then durations and the end', async () => {
    const started = await client.startExecution({ workflow: SLOW });
    let out = '';
    const status = await followExecution(
      { out: (t) => void (out += t), err: () => {}, color: false, live: true },
      client,
      started.execution_id,
    );
    expect(status).toBe('completed');
    // Redrawn in place: the cursor goes back up over the list it drew before.
    expect(out).toContain('\x1b[1F\x1b[J');
    expect(out).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] first {2}\d+ms/);
    const last = out.split('\x1b[J').at(-1)!;
    expect(last).toMatch(/^✓ first {3}\d+ms\n✓ second {2}\d+ms\ncompleted in \d+ms\n$/);
  });
});

describe('weft execution cancel and rerun', () => {
  it('cancels a waiting run; a completed one is refused with CONFLICT (exit 2)', async () => {
    const waiting = await client.startExecution({ workflow: WAITING });
    const canceled = await run('execution', 'cancel', waiting.execution_id, ...on());
    expect(canceled.code, canceled.err).toBe(0);
    expect(canceled.out).toMatch(
      new RegExp(`^execution ${waiting.execution_id} canceled at \\S+Z\\n$`),
    );
    expect((await client.getExecution(waiting.execution_id)).status).toBe('canceled');
    // wait and events --follow stop on canceled as on completed and failed (exit 1).
    const waited = await run('execution', 'wait', waiting.execution_id, ...on());
    expect(waited.code).toBe(1);
    expect(waited.out + waited.err).toContain('canceled');
    const followed = await run('execution', 'events', waiting.execution_id, '--follow', ...on());
    expect(followed.code).toBe(1);
    const refused = await run('execution', 'cancel', ids.done, ...on());
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('CONFLICT');
  });

  it('reruns the same revision with the same inputs as a new execution', async () => {
    const rerun = await run('execution', 'rerun', ids.done, ...on());
    expect(rerun.code, rerun.err).toBe(0);
    const id = rerun.out.trim();
    expect(id).not.toBe(ids.done);
    const ended = await client.waitForExecution(id);
    expect(ended).toMatchObject({
      status: 'completed',
      workflow: 'double',
      result: { outputs: { v: 7 } },
    });
    const followed = await run('execution', 'rerun', ids.failed, '--follow', ...on());
    expect(followed.code).toBe(1);
    expect(followed.err).toMatch(/^execution \S+ started \(a rerun of /);
    expect((await run('execution', 'rerun', 'no-such-run', ...on())).err).toContain('no-such-run');
  });

  it('resumes a failed run --from the failed step without running the steps before it', async () => {
    const failed = await client.startExecution({ workflow: FLAKY, waitSeconds: 10 });
    expect(failed.status).toBe('failed');
    expect(calls).toEqual({ quote: 1, flaky: 1 });
    const unknown = await run('execution', 'rerun', failed.execution_id, '--from', 'nope', ...on());
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('VALIDATION');
    expect(unknown.err).toContain('no step "nope"');
    const resumed = await run(
      'execution',
      'rerun',
      failed.execution_id,
      '--from',
      'failed',
      '--follow',
      ...on(),
    );
    expect(resumed.code, resumed.err).toBe(0);
    expect(resumed.err).toMatch(
      /^execution \S+ started \(a rerun of \S+, resumed from step charge\)/,
    );
    expect(calls).toEqual({ quote: 1, flaky: 2 });
    const id = /^execution (\S+) started/.exec(resumed.err)![1]!;
    expect(await client.getExecution(id)).toMatchObject({
      status: 'completed',
      resumed_from: { execution_id: failed.execution_id, step: 'charge' },
      result: { outputs: { price: 40 } },
    });
  });
});
