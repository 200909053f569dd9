import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, WeftClient, WeftError, type ExecutionEvent } from '@weft/sdk/client';
import { createLocalKey } from '@weft/server';
import {
  kill,
  register,
  startConnector,
  startServerProcess,
  type ServerProcess,
  type TestConnector,
} from './runtime-support.js';

/**
 * The browser entry of the SDK (`@weft/sdk/client`, `fetch` only) against a real `weft server`
 * process over loopback: executions, their event stream, deployments, the registry and the
 * routing table, and the API's errors.
 */
const dataDir = join(mkdtempSync(join(tmpdir(), 'weft-web-client-')), 'data');
let server: ServerProcess;
let connector: TestConnector;
let client: WeftClient;
let admin: WeftClient;
let release: (() => void) | undefined;
let blocked: Promise<void>;
let onBlocked: () => void;

const FLOW = `workflows:
  - name: add-two
    inputs: { n: { type: number, default: 1 } }
    steps:
      - { name: a, plugin: calc, action: add, input: { v: '{{ inputs.n }}' } }
      - { name: b, plugin: calc, action: add, input: { v: '{{ steps.a.output.v }}' } }
    outputs: { v: { value: '{{ steps.b.output.v }}' } }
`;
const BLOCKING = `workflows:
  - name: blocking
    steps:
      - { name: wait, plugin: calc, action: block, input: { v: 0 } }
`;

const plugin = (version: string) => ({
  slug: 'web-console-demo',
  version,
  name: 'Web console demo',
  description: 'A plugin the web client finds in the registry.',
  author: 'weft tests',
  homepage: 'https://example.com/demo',
  repository: 'https://github.com/example/demo',
  license: 'MIT',
  tags: ['demo'],
  icon: 'https://example.com/demo.svg',
  connector: {
    kind: 'http',
    name: 'web-console-demo',
    namespace: 'tests',
    version,
    base_url: 'https://example.com',
  },
  actions: [
    {
      name: 'ping',
      description: 'Pings',
      input_schema: { type: 'object' },
      output_schema: { type: 'object' },
      request: { method: 'GET', url: '/ping' },
    },
  ],
});

beforeAll(async () => {
  blocked = new Promise((resolve) => (onBlocked = resolve));
  connector = await startConnector(async (action, input) => {
    if (action === 'calc.block') {
      onBlocked();
      await new Promise<void>((resolve) => (release = resolve));
    }
    return { v: (input['v'] as number) + 1 };
  });
  server = await startServerProcess(dataDir, { WEFT_EGRESS_ALLOWLIST: '127.0.0.1/32' });
  const key = (await createLocalKey({ dataDir }, { name: 'console' })).key;
  const adminKey = (await createLocalKey({ dataDir }, { name: 'ops', admin: true })).key;
  client = new WeftClient({ baseUrl: server.url, apiKey: key });
  admin = new WeftClient({ baseUrl: server.url, apiKey: () => adminKey });
  await register(server.url, 'calc', ['add', 'block'], connector);
}, 60_000);

afterAll(async () => {
  release?.();
  if (server) await kill(server, 'SIGKILL');
  await connector?.close();
});

describe('the browser client against a real weft server', () => {
  it('reports the server healthy', async () => {
    expect(await client.health()).toMatchObject({ status: 'ok', checks: { database: 'healthy' } });
  });

  it('starts an execution, waits for it and reads the ended record', async () => {
    const started = await client.startExecution({ workflow: FLOW, inputs: { n: 5 } });
    expect(started).toMatchObject({ status: 'pending', workflow: 'add-two' });
    const ended = await client.waitForExecution(started.execution_id, { intervalMs: 20 });
    expect(ended).toMatchObject({ status: 'completed', result: { outputs: { v: 7 } } });
    expect(await client.getExecution(started.execution_id)).toEqual(ended);
  });

  it('answers with the ended record under waitSeconds (Prefer: wait)', async () => {
    const record = await client.startExecution({
      workflow: FLOW,
      workflowName: 'add-two',
      inputs: { n: 1 },
      waitSeconds: 10,
      idempotencyKey: 'once',
    });
    expect(record).toMatchObject({ status: 'completed', result: { outputs: { v: 3 } } });
    const again = await client.startExecution({
      workflow: FLOW,
      workflowName: 'add-two',
      inputs: { n: 1 },
      idempotencyKey: 'once',
    });
    expect(again.execution_id).toBe(record.execution_id);
  });

  it('lists executions newest first, filtered by status and workflow, page by page', async () => {
    for (const n of [10, 20, 30]) {
      await client.startExecution({ workflow: FLOW, inputs: { n }, waitSeconds: 10 });
    }
    const first = await client.listExecutions({
      workflow: 'add-two',
      status: 'completed',
      limit: 2,
    });
    expect(first.executions).toHaveLength(2);
    expect(first.executions.map((e) => e.result?.outputs['v'])).toEqual([32, 22]);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await client.listExecutions({
      workflow: 'add-two',
      status: 'completed',
      limit: 2,
      cursor: first.next_cursor!,
    });
    expect(second.executions[0]!.result?.outputs['v']).toBe(12);
    const all = [];
    for await (const record of client.allExecutions({ workflow: 'add-two', limit: 2 })) {
      all.push(record);
    }
    expect(all.length).toBeGreaterThanOrEqual(5);
    expect(new Set(all.map((r) => r.execution_id)).size).toBe(all.length);
    expect((await client.listExecutions({ workflow: 'nothing-like-it' })).executions).toEqual([]);
    expect((await client.listExecutions({ status: 'canceled' })).executions).toEqual([]);
  });

  it('streams the events of an execution, and resumes after a Last-Event-ID', async () => {
    const { execution_id: id } = await client.startExecution({
      workflow: FLOW,
      inputs: { n: 1 },
      waitSeconds: 10,
    });
    const events: ExecutionEvent[] = [];
    for await (const event of client.streamEvents(id)) events.push(event);
    expect(events.at(0)?.type).toBe('step.started');
    expect(events.at(-1)?.type).toBe('workflow.completed');
    expect(events.filter((e) => e.type === 'step.completed').map((e) => e.step_name)).toEqual([
      'a',
      'b',
    ]);
    const middle = events[1]!;
    const rest: ExecutionEvent[] = [];
    for await (const event of client.streamEvents(id, { lastEventId: middle.id })) {
      rest.push(event);
    }
    expect(rest.map((e) => e.id)).toEqual(events.slice(2).map((e) => e.id));
  });

  it('cancels a running execution, whose stream then ends; canceling an ended one conflicts', async () => {
    const { execution_id: id } = await client.startExecution({ workflow: BLOCKING });
    await blocked;
    const canceled = await client.cancelExecution(id);
    expect(canceled).toMatchObject({ execution_id: id, status: 'canceled' });
    const types: string[] = [];
    for await (const event of client.streamEvents(id)) types.push(event.type);
    expect(types.at(-1)).toBe('workflow.completed');
    release?.();
    const done = await client.startExecution({ workflow: FLOW, waitSeconds: 10 });
    const late = await client.cancelExecution(done.execution_id).catch((error: unknown) => error);
    expect(late).toBeInstanceOf(ApiError);
    expect(late).toMatchObject({ code: 'CONFLICT', status: 409 });
  });

  it('lists deployments and starts one by hand', async () => {
    const definition = {
      name: 'deployed-add',
      version: '1.0.0',
      steps: [{ name: 'a', plugin: 'calc', action: 'add', input: { v: 1 } }],
      outputs: { v: { value: '{{ steps.a.output.v }}' } },
    };
    await client.api.call('PUT', '/workflows/deployed-add', { body: definition });
    const list = await client.listDeployments();
    expect(list.workflows.map((w) => w.name)).toContain('deployed-add');
    expect(list.workflows.find((w) => w.name === 'deployed-add')).toMatchObject({
      version: '1.0.0',
      revision: 1,
      plugins: [{ slug: 'calc', version: null }],
    });
    expect(await client.getDeployment('deployed-add')).toMatchObject({
      definition: { name: 'deployed-add' },
      revisions: [{ revision: 1 }],
    });
    const started = await client.startDeployment('deployed-add');
    const ended = await client.waitForExecution(started.execution_id, { intervalMs: 20 });
    expect(ended).toMatchObject({ status: 'completed', result: { outputs: { v: 2 } } });
  });

  it('searches the registry and reads a plugin, its versions and one version', async () => {
    await client.api.call('POST', '/plugins', { body: plugin('1.0.0') });
    await client.api.call('PUT', '/plugins/web-console-demo', { body: plugin('1.1.0') });
    const found = await client.searchPlugins({ query: 'console', tag: 'demo', limit: 5 });
    expect(found.total).toBe(1);
    expect(found.results[0]).toMatchObject({ slug: 'web-console-demo', version: '1.1.0' });
    expect((await client.searchPlugins({ query: 'no-such-words-anywhere' })).results).toEqual([]);
    expect(await client.getPlugin('web-console-demo')).toMatchObject({
      version: '1.1.0',
      latest_version: '1.1.0',
      actions: [{ name: 'ping' }],
    });
    expect((await client.getPlugin('web-console-demo', { version: '1.0.0' })).version).toBe(
      '1.0.0',
    );
    expect(await client.pluginVersions('web-console-demo')).toEqual(['1.1.0', '1.0.0']);
  });

  it('lists the routing table (with an admin key, given as a function)', async () => {
    const routes = await admin.listRoutes();
    expect(routes.instances).toContainEqual(
      expect.objectContaining({ plugin_slug: 'calc', instance_id: 'calc-1', url: connector.url }),
    );
  });

  it('decodes error answers into ApiError with code, message, details and status', async () => {
    const missing = await client.getExecution('nope').catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(ApiError);
    expect(missing).toBeInstanceOf(WeftError);
    expect(missing).toMatchObject({ code: 'NOT_FOUND', status: 404, fromServer: true });
    expect((missing as ApiError).message).toMatch(/nope/);
    const refused = await client
      .startExecution({ workflow: FLOW.replaceAll('calc', 'nowhere') })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({
      code: 'VALIDATION',
      status: 400,
      details: { unavailable: ['nowhere'] },
    });
    const stranger = new WeftClient({ baseUrl: server.url, apiKey: 'not-a-key' });
    await expect(stranger.listExecutions()).rejects.toMatchObject({
      name: 'ApiError',
      code: 'UNAUTHORIZED',
      status: 401,
    });
    await expect(stranger.streamEvents('nope').next()).rejects.toMatchObject({ status: 401 });
    await expect(client.getPlugin('no-such-plugin')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('gives an unreachable server as UNAVAILABLE, not as an answer', async () => {
    const gone = new WeftClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k' });
    const error = await gone.health().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeftError);
    expect(error).not.toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'UNAVAILABLE', details: { backend: 'cloud' } });
  });
});
