import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WeftError } from '@weft/core';
import { Weft, type CommonWeftOptions, type WorkflowDefinition } from '@weft/sdk';
import { bearer, kill, startServerProcess, type ServerProcess } from './runtime-support.js';

/**
 * The SDK's `cloud` and `hybrid` modes against a real `weft server` process over loopback. The
 * cloud plugin `calc` is published by `syncPlugins()` with a declarative `http` action that
 * calls a tiny HTTP service in this process; the local plugin `here` is a function handler.
 */
const dataDir = join(mkdtempSync(join(tmpdir(), 'weft-cloud-')), 'data');
let server: ServerProcess;
let key: string;
let service: Server;
let serviceUrl: string;
/** Requests the tiny service received, as `METHOD path`. */
const received: string[] = [];
let releaseSlow: (() => void) | undefined;

const calcPlugin = (version: string) => ({
  slug: 'calc',
  version,
  name: 'Calc',
  description: 'Doubles numbers over HTTP.',
  author: 'weft tests',
  homepage: 'https://example.com/calc',
  repository: 'https://github.com/example/calc',
  license: 'MIT',
  tags: ['test'],
  icon: 'https://example.com/calc.svg',
  connector: { kind: 'http', name: 'calc', namespace: 'tests', version, base_url: serviceUrl },
  actions: [
    {
      name: 'double',
      description: 'Doubles v',
      input_schema: { type: 'object', properties: { v: { type: 'number' } }, required: ['v'] },
      output_schema: { type: 'object', properties: { v: { type: 'number' } } },
      request: { method: 'POST', url: '/double', body: { v: '{{ inputs.v }}' } },
    },
    {
      name: 'slow',
      description: 'Answers when the test releases it',
      input_schema: { type: 'object' },
      output_schema: { type: 'object' },
      request: { method: 'POST', url: '/slow', body: {} },
    },
  ],
});

const FLOWS = (): WorkflowDefinition[] =>
  [
    {
      name: 'cloudy',
      version: '1.0.0',
      inputs: { n: { type: 'number', required: true } },
      steps: [
        {
          name: 'a',
          type: 'action',
          plugin: 'calc',
          action: 'double',
          input: { v: '{{ inputs.n }}' },
        },
        {
          name: 'b',
          type: 'action',
          plugin: 'calc',
          action: 'double',
          input: { v: '{{ steps.a.output.v }}' },
        },
      ],
      outputs: { v: { value: '{{ steps.b.output.v }}' } },
    },
    {
      name: 'slow',
      version: '1.0.0',
      steps: [{ name: 's', type: 'action', plugin: 'calc', action: 'slow', input: {} }],
    },
    {
      name: 'mixed',
      version: '1.0.0',
      inputs: { n: { type: 'number', required: true } },
      steps: [
        {
          name: 'here',
          type: 'action',
          plugin: 'here',
          action: 'inc',
          execution: 'local',
          input: { v: '{{ inputs.n }}' },
        },
        {
          name: 'there',
          type: 'action',
          plugin: 'calc',
          action: 'double',
          execution: 'cloud',
          input: { v: '{{ steps.here.output.v }}' },
        },
      ],
      outputs: { v: { value: '{{ steps.there.output.v }}' } },
    },
  ] as WorkflowDefinition[];

function client(options: CommonWeftOptions & { executionMode?: 'cloud' | 'hybrid' } = {}): Weft {
  const { executionMode = 'cloud', ...rest } = options;
  const settings = {
    apiKey: key,
    cloudUrl: server.url,
    logLevel: 'silent',
    inheritEnvironment: false,
    ...rest,
  } as const;
  // Narrowed per mode, since WeftOptions is checked one mode at a time.
  const weft = new Weft(
    executionMode === 'hybrid' ? { ...settings, executionMode } : { ...settings, executionMode },
  );
  weft.addWorkflows(FLOWS());
  return weft;
}

async function usage(): Promise<{ executions: number; action_calls: number }> {
  const response = await fetch(`${server.url}/usage`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return ((await response.json()) as { totals: { executions: number; action_calls: number } })
    .totals;
}

beforeAll(async () => {
  service = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push(`${request.method} ${request.url}`);
      const answer = (value: unknown) =>
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (request.url === '/double') {
        answer({ v: (JSON.parse(body) as { v: number }).v * 2 });
      } else if (request.url === '/slow') {
        releaseSlow = () => answer({});
      } else {
        response.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  serviceUrl = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
  // The published `calc` calls this process on loopback: the server's egress policy must allow it.
  server = await startServerProcess(dataDir, { WEFT_EGRESS_ALLOWLIST: '127.0.0.0/8' });
  key = (await bearer(dataDir, 'cloud')).slice('Bearer '.length);
}, 60_000);

afterAll(async () => {
  releaseSlow?.();
  if (server) await kill(server);
  service.closeAllConnections();
  await new Promise<void>((resolve) => service.close(() => resolve()));
});

describe('cloud mode over a real server', () => {
  it('publishes the loaded plugin with syncPlugins, then reports it unchanged, then updates it', async () => {
    const weft = client();
    weft.registerConnector(calcPlugin('1.0.0'));
    expect(await weft.syncPlugins()).toEqual([
      { slug: 'calc', version: '1.0.0', status: 'published' },
    ]);
    expect(await weft.syncPlugins()).toEqual([
      { slug: 'calc', version: '1.0.0', status: 'unchanged' },
    ]);
    const newer = client();
    newer.registerConnector(calcPlugin('1.1.0'));
    newer.registerConnector({
      connector: { kind: 'function', name: 'bare', namespace: 'tests', version: '1.0.0' },
      actions: [{ name: 'x' }],
    });
    const report = await newer.syncPlugins();
    expect(report[0]).toEqual({
      slug: 'calc',
      version: '1.1.0',
      status: 'updated',
      previous_version: '1.0.0',
    });
    expect(report[1]).toMatchObject({ slug: 'bare', status: 'skipped' });
    await Promise.all([weft.close(), newer.close()]);
  });

  it('publishes a plugin file as written, without the ${VAR} values of the environment', async () => {
    const file = join(dataDir, '..', 'calc-file.yaml');
    const { stringify } = await import('yaml');
    const definition = calcPlugin('1.0.0');
    writeFileSync(
      file,
      stringify({
        ...definition,
        slug: 'calc-file',
        connector: {
          ...definition.connector,
          name: 'calc-file',
          headers: { 'X-Token': '${CALC_TOKEN}' },
        },
      }),
    );
    const weft = client({ environment: { CALC_TOKEN: 'tok-very-secret' } });
    await weft.loadConnector(file);
    expect(await weft.syncPlugins()).toEqual([
      { slug: 'calc-file', version: '1.0.0', status: 'published' },
    ]);
    const stored = await (await fetch(`${server.url}/plugins/calc-file/1.0.0/schema`)).text();
    expect(stored).toContain('${CALC_TOKEN}');
    expect(stored).not.toContain('tok-very-secret');
    await weft.close();
  });

  it('executes a whole workflow on the server with the result shape of local mode', async () => {
    const weft = client();
    const before = received.length;
    const result = await weft.execute('cloudy', { n: 3 });
    expect(result).toMatchObject({ workflow: 'cloudy', status: 'completed', outputs: { v: 12 } });
    expect(result.steps['a']).toMatchObject({ status: 'success', output: { v: 6 }, attempts: 1 });
    expect(typeof result.execution_id).toBe('string');
    expect(typeof result.duration_ms).toBe('number');
    expect(received.slice(before)).toEqual(['POST /double', 'POST /double']);
    await weft.close();
  });

  it('sends each subworkflow in the version its step pins, picked as a local run picks it', async () => {
    const sub = (version: string): WorkflowDefinition => ({
      name: 'sub',
      version,
      inputs: { n: { type: 'number', required: true } },
      steps: [
        {
          name: 'd',
          type: 'action',
          plugin: 'calc',
          action: 'double',
          input: { v: '{{ inputs.n }}' },
        },
      ],
      outputs: { v: { value: '{{ steps.d.output.v }}' }, version: { value: version } },
    });
    const caller = (name: string, pins: string[]): WorkflowDefinition => ({
      name,
      version: '1.0.0',
      inputs: {},
      steps: pins.map((pin, i) => ({
        name: `call${i}`,
        type: 'workflow',
        workflow: 'sub',
        version: pin,
        input: { n: 5 },
      })),
      outputs: { version: { value: '{{ steps.call0.outputs.version }}' } },
    });
    const weft = client();
    weft.addWorkflows([
      sub('1.0.0'),
      sub('1.4.0'),
      sub('2.0.0'),
      caller('pinned', ['^1.0']),
      caller('both', ['^1.0', '2.x']),
    ]);
    const result = await weft.execute('pinned');
    expect(result).toMatchObject({ status: 'completed', outputs: { version: '1.4.0' } });
    expect(result.steps['call0']).toMatchObject({ status: 'success' });
    // The same pick as a local run of the same definitions.
    const local = new Weft({ logLevel: 'silent', inheritEnvironment: false });
    local.addWorkflows([sub('1.0.0'), sub('1.4.0'), sub('2.0.0'), caller('pinned', ['^1.0'])]);
    local.registerHandler('calc.double', (input: { v: number }) => ({ v: input.v * 2 }));
    const here = await local.execute('pinned');
    expect(here.outputs).toEqual({ version: '1.4.0' });
    // One file holds one version of each name: two versions of `sub` are refused before sending.
    const sent = received.length;
    await expect(weft.execute('both')).rejects.toMatchObject({
      code: 'VALIDATION',
      details: { field: 'version', constraint: 'one_version' },
    });
    expect(received.length).toBe(sent);
    await Promise.all([weft.close(), local.close()]);
  });

  it('starts with executeAsync (the pending record (docs/runtime.md#execution-record)) and waits for the end', async () => {
    const weft = client();
    const pending = await weft.executeAsync('cloudy', { n: 1 });
    expect(pending.status).toBe('pending');
    expect(pending.poll_url).toBe(`/workflows/executions/${pending.execution_id}`);
    const ended = await weft.wait(pending.execution_id, { intervalMs: 20, timeoutMs: 20_000 });
    expect(ended).toMatchObject({ status: 'completed', result: { outputs: { v: 4 } } });
    await weft.close();
  });

  it('streams the events (docs/protocol.md#stream-events) of an execution through workflow.completed', async () => {
    const weft = client();
    const pending = await weft.executeAsync('cloudy', { n: 2 });
    const types: string[] = [];
    const ids: string[] = [];
    for await (const event of weft.stream(pending.execution_id)) {
      types.push(event.type);
      ids.push(event.id);
      expect(event.workflow_id).toBe(pending.execution_id);
    }
    expect(types).toEqual([
      'step.started',
      'step.completed',
      'step.started',
      'step.completed',
      'workflow.completed',
    ]);
    expect(new Set(ids).size).toBe(ids.length);
    // A finished execution replays from Last-Event-ID on.
    const rest: string[] = [];
    for await (const event of weft.stream(pending.execution_id, { lastEventId: ids[2]! }))
      rest.push(event.type);
    expect(rest).toEqual(['step.completed', 'workflow.completed']);
    await weft.close();
  });

  it('passes events to onEvent while execute runs, like local mode', async () => {
    const weft = client();
    const seen: string[] = [];
    const result = await weft.execute('cloudy', { n: 5 }, { onEvent: (e) => seen.push(e.type) });
    expect(result.outputs).toEqual({ v: 20 });
    expect(seen.at(-1)).toBe('workflow.completed');
    await weft.close();
  });

  it('cancels a running execution', async () => {
    const weft = client();
    const pending = await weft.executeAsync('slow');
    for (let i = 0; i < 200 && releaseSlow === undefined; i++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    const canceled = await weft.cancel(pending.execution_id);
    expect(canceled).toMatchObject({ status: 'canceled', error: { code: 'CANCELED' } });
    releaseSlow?.();
    releaseSlow = undefined;
    await expect(weft.cancel(pending.execution_id)).resolves.toMatchObject({ status: 'canceled' });
    await weft.close();
  });

  it('cancels the execution on the server when the signal of execute fires', async () => {
    const weft = client();
    releaseSlow = undefined;
    const controller = new AbortController();
    const running = weft.execute('slow', {}, { signal: controller.signal });
    for (let i = 0; i < 200 && releaseSlow === undefined; i++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    controller.abort();
    const result = await running;
    expect(result.status).toBe('canceled');
    expect(result.error?.code).toBe('CANCELED');
    (releaseSlow as (() => void) | undefined)?.();
    releaseSlow = undefined;
    await weft.close();
  });

  it('brings the server errors back as WeftErrors', async () => {
    const weft = client();
    weft.addWorkflows([
      {
        name: 'unknown-plugin',
        version: '1.0.0',
        steps: [{ name: 'x', type: 'action', plugin: 'nowhere', action: 'go', input: {} }],
      } as WorkflowDefinition,
    ]);
    const error = (await weft.execute('unknown-plugin').catch((e: unknown) => e)) as WeftError;
    expect(error).toBeInstanceOf(WeftError);
    expect(error.code).toBe('VALIDATION');
    expect(error.details['unavailable']).toEqual(['nowhere']);
    await expect(weft.wait('no-such-execution')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const wrongKey = client({ apiKey: 'wk_not_a_key' });
    await expect(wrongKey.execute('cloudy', { n: 1 })).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
    await Promise.all([weft.close(), wrongKey.close()]);
  });

  it('fails without an API key before any request', () => {
    const before = received.length;
    expect(
      () => new Weft({ executionMode: 'cloud', cloudUrl: serviceUrl, inheritEnvironment: false }),
    ).toThrow(/needs an API key: pass apiKey or set WORKFLOW_REGISTRY_API_KEY/);
    expect(
      () => new Weft({ executionMode: 'hybrid', cloudUrl: serviceUrl, inheritEnvironment: false }),
    ).toThrow(/needs an API key/);
    expect(received.length).toBe(before);
  });
});

describe('hybrid mode over a real server', () => {
  const hybrid = () => {
    const weft = client({ executionMode: 'hybrid' });
    const calls: number[] = [];
    weft.registerHandler('here.inc', (input: { v: number }) => {
      calls.push(input.v);
      return { v: input.v + 1 };
    });
    return { weft, calls };
  };

  it('runs the local step in this process and only the cloud step on the server', async () => {
    const { weft, calls } = hybrid();
    const before = await usage();
    const served = received.length;
    const result = await weft.execute('mixed', { n: 4 });
    expect(result).toMatchObject({ status: 'completed', outputs: { v: 10 } });
    expect(calls).toEqual([4]);
    expect(received.slice(served)).toEqual(['POST /double']);
    const after = await usage();
    expect(after.action_calls - before.action_calls).toBe(1);
    expect(after.executions).toBe(before.executions);
    await weft.close();
  });

  it('overrides the placement per run, by mode or by plugin', async () => {
    const { weft } = hybrid();
    weft.registerConnector(calcPlugin('1.1.0'));
    const before = await usage();
    const local = await weft.execute('mixed', { n: 1 }, { execution: { calc: 'local' } });
    expect(local.outputs).toEqual({ v: 4 });
    expect((await usage()).action_calls).toBe(before.action_calls);
    const cloud = await weft.execute('mixed', { n: 1 }, { execution: 'cloud' });
    // `here` is neither published nor registered: the server refuses the call.
    expect(cloud.status).toBe('failed');
    expect(cloud.steps['here']!.error).toMatchObject({ code: 'VALIDATION' });
    await weft.close();
  });

  it('refuses a local step without a local connector before anything runs', async () => {
    const weft = client({ executionMode: 'hybrid' });
    const served = received.length;
    const result = await weft.execute('mixed', { n: 1 });
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('VALIDATION');
    expect(result.error?.message).toContain('here');
    expect(received.length).toBe(served);
    await weft.close();
  });
});
