import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { ScriptedModelServer } from '@weft/agents/testing';
import { WeftClient } from '@weft/sdk/client';
import { createLocalKey, startServer, type RunningServer } from '@weft/server';
import { run } from '../test-support.js';

/**
 * A for_each over two SKUs, a transform adding their prices, a charge that fails once and is
 * retried, an agent step, and a secret input that reaches the charge.
 */
const workflowText = (
  agent: boolean,
  sum = '{{ steps.prices.output[0].price + steps.prices.output[1].price }}',
) => `workflows:
  - name: orders
    version: 2.1.0
    inputs:
      skus: { type: array, required: true }
      pin: { type: string, secret: true, required: true }
    steps:
      - name: prices
        plugin: shop
        action: price
        for_each: '{{ inputs.skus }}'
        input: { sku: '{{ item }}' }
      - name: total
        type: transform
        input: { sum: '${sum}' }
      - name: charge
        plugin: shop
        action: charge
        retry: { max_attempts: 3, backoff: fixed, backoff_factor: 0.01 }
        input: { amount: '{{ steps.total.output.sum }}', pin: '{{ inputs.pin }}' }
${
  agent
    ? `      - name: note
        type: agent
        agent: agent:shop/clerk@^1
        input: { prompt: 'Thank the customer for an order of {{ steps.total.output.sum }}' }
`
    : ''
}    outputs:
      total: { value: '{{ steps.total.output.sum }}' }
      receipt: { value: '{{ steps.charge.output.receipt }}' }
${agent ? "      note: { value: '{{ steps.note.output.text }}' }\n" : ''}`;

const dir = mkdtempSync(join(tmpdir(), 'weft-record-'));
let connector: Server;
let model: ScriptedModelServer;
/** Calls the connector answered; one made while `replaying` fails the test. */
const hits: string[] = [];
const hitsWhileReplaying: string[] = [];
let replaying = false;
let charges = 0;
/** Releases the `hold` calls (a run kept running). */
let release: () => void = () => {};
const held = new Promise<void>((resolve) => (release = resolve));

function answer(action: string, input: Record<string, unknown>): { ok: boolean; data: unknown } {
  if (action === 'price')
    return { ok: true, data: { sku: input['sku'], price: input['sku'] === 'a' ? 3 : 4 } };
  // The first charge of each run fails, the second goes through.
  if (charges++ % 2 === 0) return { ok: false, data: { error: 'busy' } };
  return { ok: true, data: { receipt: `r-${input['amount']}` } };
}

beforeAll(async () => {
  connector = createServer((request, response) => {
    // The router's health checks.
    if (request.method === 'GET') return void response.end('{"status":"ok"}');
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      hits.push(`${request.method} ${request.url}`);
      if (replaying) hitsWhileReplaying.push(`${request.method} ${request.url}`);
      response.setHeader('content-type', 'application/json');
      const parsed = JSON.parse(body || '{}') as Record<string, unknown>;
      if (request.url === '/execute') {
        // A call from the router of weft server: {action: "shop.<action>", input}.
        const action = String(parsed['action']).replace('shop.', '');
        if (action === 'hold')
          return void held.then(() => response.end('{"status":"success","data":{}}'));
        const result = answer(action, parsed['input'] as Record<string, unknown>);
        response.statusCode = result.ok ? 200 : 503;
        return void response.end(
          JSON.stringify(
            result.ok
              ? { status: 'success', data: result.data }
              : {
                  status: 'error',
                  code: 'BACKEND_ERROR',
                  message: 'busy',
                  details: { backend: 'shop' },
                },
          ),
        );
      }
      const result = answer(request.url!.slice(1), parsed);
      response.statusCode = result.ok ? 200 : 503;
      response.end(JSON.stringify(result.data));
    });
  });
  await new Promise<void>((resolve) => connector.listen(0, '127.0.0.1', resolve));
  const port = (connector.address() as AddressInfo).port;
  model = await new ScriptedModelServer(() => ({
    text: 'Thank you for your order of 7!',
    usage: { prompt_tokens: 20, completion_tokens: 8 },
  })).start();
  mkdirSync(join(dir, 'plugins'));
  writeFileSync(
    join(dir, 'plugins', 'shop.yaml'),
    `connector:
  type: connector
  kind: http
  name: shop
  namespace: test
  version: 1.0.0
  base_url: http://127.0.0.1:${port}
actions:
  - name: price
    request: { method: POST, url: /price, body: { sku: '{{ inputs.sku }}' } }
  - name: charge
    request: { method: POST, url: /charge, body: { amount: '{{ inputs.amount }}' } }
`,
  );
  mkdirSync(join(dir, 'agents'));
  writeFileSync(
    join(dir, 'agents', 'clerk.yaml'),
    `agent:
  namespace: shop
  name: clerk
  version: 1.0.0
  description: Thanks customers
  model: openai-compatible:scripted
  base_url: ${model.url}
  instructions: Thank the customer in one sentence.
`,
  );
  writeFileSync(join(dir, 'orders.yaml'), workflowText(true));
});
afterAll(async () => {
  await model?.close();
  connector?.closeAllConnections();
  await new Promise((resolve) => connector?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  replaying = false;
});

const runArgs = (file: string, record: string) => [
  'workflow',
  'run',
  file,
  '--plugins',
  join(dir, 'plugins'),
  '--agents',
  join(dir, 'agents'),
  '-i',
  'skus=["a","b"]',
  '-i',
  'pin=4711-secret',
  '--record',
  record,
];

describe('weft workflow run --record, then weft workflow test --fixture <file>', () => {
  it('records a for_each, a retry and an agent step, replays it green, then red when changed', async () => {
    const fixture = join(dir, 'fixtures', 'big-order.yaml');
    const recorded = await run(...runArgs(join(dir, 'orders.yaml'), fixture));
    expect(recorded.err).toContain(`recorded ${fixture}`);
    expect(recorded.code, recorded.err).toBe(0);
    expect(model.requests).toHaveLength(1);
    const text = readFileSync(fixture, 'utf8');
    expect(text).toMatch(
      /^# weft fixture of workflow "orders": recorded from execution \S+\n# at \d{4}-\d\d-\d\dT[\d:.]+Z, revision 2\.1\.0\./,
    );
    // The secret never reaches the file; the fixture says which input was one.
    expect(text).not.toContain('4711-secret');
    const document = parse(text) as {
      workflow: string;
      testing: { fixtures: Record<string, unknown>[] };
    };
    expect(document.workflow).toBe('orders');
    const [recordedFixture] = document.testing.fixtures;
    expect(recordedFixture).toMatchObject({
      name: 'big-order',
      inputs: { skus: ['a', 'b'], pin: '***' },
      secretInputs: ['pin'],
      mockData: {
        // Per item: they differ.
        prices: { items: [{ output: { sku: 'a', price: 3 } }, { output: { sku: 'b', price: 4 } }] },
        // Per attempt: the first failed.
        charge: {
          attempts: [{ error: { code: 'BACKEND_ERROR' } }, { output: { receipt: 'r-7' } }],
        },
        note: { output: { text: 'Thank you for your order of 7!' } },
      },
      expectedSteps: {
        total: { status: 'success', input: { sum: 7 }, output: { sum: 7 } },
        charge: { status: 'success', input: { amount: 7, pin: '***' } },
      },
      expectedOutputs: { total: 7, receipt: 'r-7', note: 'Thank you for your order of 7!' },
    });

    // Replay: nothing is called.
    replaying = true;
    const calls = hits.length;
    const green = await run('workflow', 'test', join(dir, 'orders.yaml'), '--fixture', fixture);
    expect(green.err).toBe('');
    expect(green.out).toMatch(
      /^pass orders › big-order \(\d+ ms, replayed\)\n1 passed, 0 failed\n$/,
    );
    expect(green.code).toBe(0);
    expect(hits.length).toBe(calls);
    expect(model.requests).toHaveLength(1);

    // The same fixture pasted under the workflow's testing.fixtures runs by its name.
    const inline = parse(workflowText(true)) as { workflows: Record<string, unknown>[] };
    inline.workflows[0]!['testing'] = { fixtures: document.testing.fixtures };
    writeFileSync(join(dir, 'inline.yaml'), stringify(inline));
    const named = await run('workflow', 'test', join(dir, 'inline.yaml'), '--fixture', 'big-order');
    expect(named.out).toMatch(/^pass orders › big-order/);
    expect(named.code).toBe(0);

    // The transform changes: its output, the charge's input and the outputs differ.
    const changed = join(dir, 'orders-changed.yaml');
    writeFileSync(
      changed,
      workflowText(true, '{{ steps.prices.output[0].price * steps.prices.output[1].price }}'),
    );
    const red = await run('workflow', 'test', changed, '--fixture', fixture);
    expect(red.code).toBe(1);
    expect(red.out).toContain('FAIL orders › big-order: 5 differences\n');
    expect(red.out).toContain('    outputs.total\n      - expected 7\n      + actual   12\n');
    expect(red.out).toContain(
      '    steps.total.input.sum\n      - expected 7\n      + actual   12\n',
    );
    expect(red.out).toContain(
      '    steps.total.output.sum\n      - expected 7\n      + actual   12\n',
    );
    expect(red.out).toContain(
      '    steps.charge.input.amount\n      - expected 7\n      + actual   12\n',
    );
    expect(red.out).toContain(
      '    steps.note.input.prompt\n      - expected "Thank the customer for an order of 7"\n' +
        '      + actual   "Thank the customer for an order of 12"\n',
    );
    expect(red.out).toContain('0 passed, 1 failed\n');
    expect(hitsWhileReplaying).toEqual([]);
    expect(hits.length).toBe(calls);
    expect(model.requests).toHaveLength(1);
  });
});

describe('weft workflow test --fixture <file> with a hostile file', () => {
  it('answers with file:line:column and exit 2, running nothing', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(
      bad,
      'workflow: orders\ntesting:\n  fixtures:\n    - name: x\n      mockData:\n        prices: { output: 1, output: 2 }\n',
    );
    const refused = await run('workflow', 'test', join(dir, 'orders.yaml'), '--fixture', bad);
    expect(refused.code, refused.err).toBe(2);
    expect(refused.err).toContain(`${bad}:6:30: error: Map keys must be unique`);
    expect(refused.out).toBe('');
    const missing = await run(
      'workflow',
      'test',
      join(dir, 'orders.yaml'),
      '--fixture',
      join(dir, 'none.yaml'),
    );
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('none.yaml');
  });
});

describe('weft execution record', () => {
  let server: RunningServer;
  let client: WeftClient;
  let on: string[] = [];
  const serverDir = join(dir, 'server');

  beforeAll(async () => {
    server = await startServer(
      { port: 0, dataDir: join(serverDir, 'data'), logLevel: 'silent' },
      { logger: false },
    );
    const { key } = await createLocalKey(
      { dataDir: join(serverDir, 'data') },
      { name: 'ops', owner: 'acme' },
    );
    client = new WeftClient({ baseUrl: server.url, apiKey: key });
    on = ['--server', server.url, '--api-key', key];
    const registered = await fetch(`${server.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        plugin_slug: 'shop',
        version: '1.0.0',
        url: `http://127.0.0.1:${(connector.address() as AddressInfo).port}`,
        actions: ['price', 'charge', 'hold'],
      }),
    });
    expect(registered.status).toBe(201);
  }, 30_000);
  afterAll(async () => {
    release();
    await server?.close();
  });

  /** The execution's status once it is `wanted` (or its last status, after a while). */
  async function statusReached(id: string, wanted: string): Promise<string> {
    let status = '';
    for (let i = 0; i < 400 && status !== wanted; i++) {
      status = (await client.getExecution(id)).status;
      if (status !== wanted) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return status;
  }

  it('prints the fixture of a server execution: the same one a local run records', async () => {
    const lite = join(dir, 'lite.yaml');
    writeFileSync(lite, workflowText(false));
    const local = join(dir, 'fixtures', 'lite.yaml');
    const recorded = await run(
      'workflow',
      'run',
      lite,
      '--plugins',
      join(dir, 'plugins'),
      '-i',
      'skus=["a","b"]',
      '-i',
      'pin=4711-secret',
      '--record',
      local,
    );
    expect(recorded.code, recorded.err).toBe(0);
    const started = await client.startExecution({
      workflow: workflowText(false),
      inputs: { skus: ['a', 'b'], pin: '4711-secret' },
      waitSeconds: 20,
    });
    expect(started.status, JSON.stringify(started.error)).toBe('completed');
    const printed = await run('execution', 'record', started.execution_id, '--name', 'lite', ...on);
    expect(printed.err).toBe('');
    expect(printed.code).toBe(0);
    expect(printed.out).toMatch(
      new RegExp(
        `^# weft fixture of workflow "orders": recorded from execution ${started.execution_id}\n# at \\S+Z, revision 2\\.1\\.0\\.`,
      ),
    );
    expect(printed.out).not.toContain('4711-secret');
    const body = (text: string) => text.replace(/^#.*\n/gm, '');
    expect(body(printed.out)).toBe(body(readFileSync(local, 'utf8')));
    expect(parse(printed.out)).toMatchObject({
      testing: {
        fixtures: [
          {
            secretInputs: ['pin'],
            inputs: { pin: '***' },
            mockData: {
              charge: {
                attempts: [{ error: { code: 'BACKEND_ERROR' } }, { output: { receipt: 'r-7' } }],
              },
            },
          },
        ],
      },
    });
    // It replays green, nothing called.
    const fromServer = join(dir, 'fixtures', 'from-server.yaml');
    writeFileSync(fromServer, printed.out);
    replaying = true;
    const green = await run('workflow', 'test', lite, '--fixture', fromServer);
    expect(green.out).toContain('pass orders › lite');
    expect(green.code).toBe(0);
    expect(hitsWhileReplaying).toEqual([]);
  });

  it('refuses an execution that is running or waiting for an approval (exit 2)', async () => {
    const running = await client.startExecution({
      workflow: `workflows:
  - name: holding
    steps:
      - { name: wait, plugin: shop, action: hold, input: {} }
`,
    });
    expect(await statusReached(running.execution_id, 'running')).toBe('running');
    const refused = await run('execution', 'record', running.execution_id, ...on);
    expect(refused.code, refused.err).toBe(2);
    console.log(refused.err);
    expect(refused.err).toMatch(
      new RegExp(
        `execution ${running.execution_id} is running: only a finished execution can be recorded`,
      ),
    );
    expect(refused.out).toBe('');
    const waiting = await client.startExecution({
      workflow: `workflows:
  - name: guarded
    authorization:
      enabled: true
      approval: { required: true, approvers: [lead], timeout: 600 }
    steps:
      - { name: pay, type: transform, input: { paid: true } }
`,
    });
    expect(await statusReached(waiting.execution_id, 'waiting')).toBe('waiting');
    const notYet = await run('execution', 'record', waiting.execution_id, ...on);
    expect(notYet.code).toBe(2);
    expect(notYet.err).toContain(
      `execution ${waiting.execution_id} is waiting: only a finished execution can be recorded`,
    );
    release();
  });
});
