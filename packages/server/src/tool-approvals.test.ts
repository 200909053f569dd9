import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ScriptedModelServer } from '@weft/agents/testing';
import { createApiKey } from '@weft/identity';
import { takeTestSchema, type TestSchema } from '@weft/store';
import { buildServer, type BuiltServer } from './build.js';
import { pluginDefinition } from './test-support/harness.js';

/**
 * Tool calls that wait for approval (docs/agents.md#tool-approvals) on `weft server`, over real
 * HTTP on loopback: a scripted OpenAI-compatible model asks for `payments_pay`, the execution
 * waits, approvers decide through the approvals endpoints.
 */
/** A JSON answer as parsed. */
type Json = ReturnType<typeof JSON.parse>;
let model: ScriptedModelServer;
let service: Server;
let server: BuiltServer;
let base: string;
let dataDir: string;
let schema: TestSchema | undefined;
/** The bodies the payments service received. */
const paid: unknown[] = [];
/** The idempotency keys of the pay and quote calls the service received. */
const payKeys: string[] = [];
const quoted: string[] = [];
const PAY = { name: 'payments_pay', arguments: '{"amount":10,"to":"bob"}' };
/** The tool calls the model asks for in its first turn. */
let firstTurn = [PAY];
let now = Date.now();
const keys: Record<string, string> = {};

const AGENT = (url: string, name = 'payer', extra = '') => `agent:
  namespace: acme
  name: ${name}${extra}
  version: 1.0.0
  model: openai-compatible:scripted
  base_url: ${url}
  api_key_secret: MODEL_KEY
  tools:
    - payments.quote
    - plugin: payments
      action: pay
      approval: { approvers: [finance], timeout: 600 }
`;

beforeAll(async () => {
  // Asks to pay until a tool answer came; then says what the tool answered.
  model = await new ScriptedModelServer((body) => {
    const messages = body['messages'] as { role: string; content: unknown }[];
    const last = messages.at(-1)!;
    return last.role === 'tool'
      ? {
          text: `tool said: ${String(last.content)}`,
          usage: { prompt_tokens: 40, completion_tokens: 6 },
        }
      : {
          toolCalls: firstTurn,
          usage: { prompt_tokens: 30, completion_tokens: 4 },
        };
  }).start();
  service = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const key = String(request.headers['idempotency-key']);
      if (request.url === '/quote') {
        quoted.push(key);
        return response.writeHead(200, { 'content-type': 'application/json' }).end('{"fee":1}');
      }
      paid.push(JSON.parse(body));
      payKeys.push(key);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"paid":true}');
    });
  });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await model?.close();
  service?.closeAllConnections();
  await new Promise<void>((resolve) => service.close(() => resolve()));
});

const databaseUrl = process.env['WEFT_TEST_DATABASE_URL'];
const STORES = [
  { name: 'SQLite', kind: 'sqlite' as const, skip: false },
  {
    name: 'PostgreSQL (set WEFT_TEST_DATABASE_URL to run)',
    kind: 'postgres' as const,
    skip: !databaseUrl,
  },
];

/** A server on `kind` with the agent, the keys and the payments plugin published. */
async function open(kind: 'sqlite' | 'postgres') {
  dataDir = mkdtempSync(join(tmpdir(), 'weft-tool-approvals-'));
  schema = kind === 'postgres' ? await takeTestSchema(databaseUrl!) : undefined;
  const agents = join(dataDir, 'agents');
  mkdirSync(agents);
  writeFileSync(join(agents, 'payer.yaml'), AGENT(model.url));
  writeFileSync(join(agents, 'streamer.yaml'), AGENT(model.url, 'streamer', '\n  streaming: true'));
  server = await buildServer(
    {
      dataDir,
      ...(schema ? { databaseUrl, databaseSchema: schema.name } : {}),
      logLevel: 'silent',
      egressAllowlist: ['127.0.0.0/8'],
      agentsDir: agents,
      runtimeSecrets: { MODEL_KEY: 'sk-model' },
    },
    {
      logger: false,
      runtime: { clock: { now: () => now, sleep: (ms) => new Promise((r) => setTimeout(r, ms)) } },
    },
  );
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
  const at = new Date().toISOString();
  for (const [name, owner, roles] of [
    ['alice', 'acme', ['dev']],
    ['bob', 'acme', ['finance']],
    ['carol', 'acme', ['finance']],
    ['eve', 'evil', ['finance']],
  ] as const) {
    keys[name] = (await createApiKey(server.store, { name, owner, roles: [...roles] }, at)).key;
  }
  const port = (service.address() as AddressInfo).port;
  const plugin = pluginDefinition('payments', '1.0.0', {
    connector: {
      kind: 'http',
      name: 'payments',
      namespace: 'acme',
      version: '1.0.0',
      base_url: `http://127.0.0.1:${port}`,
    },
    actions: [
      {
        name: 'quote',
        description: 'Quotes the fee of a payment',
        input_schema: { type: 'object', properties: { amount: { type: 'number' } } },
        output_schema: { type: 'object' },
        request: { method: 'POST', url: '/quote', body: '{{ inputs }}' },
      },
      {
        name: 'pay',
        description: 'Pays someone',
        input_schema: {
          type: 'object',
          properties: { amount: { type: 'number', maximum: 100 }, to: { type: 'string' } },
          required: ['amount', 'to'],
          additionalProperties: false,
        },
        output_schema: { type: 'object' },
        request: { method: 'POST', url: '/pay', body: '{{ inputs }}' },
      },
    ],
  });
  const published = await call('alice', 'POST', '/plugins', plugin);
  expect(published.status, JSON.stringify(published.body)).toBe(201);
}

beforeEach(() => {
  paid.length = payKeys.length = quoted.length = 0;
  firstTurn = [PAY];
  model.requests.length = 0;
});

async function call(
  who: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${keys[who]}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {} };
}

function workflow(step: Record<string, unknown> = {}) {
  return {
    name: 'payout',
    steps: [
      {
        name: 'pay',
        type: 'agent',
        agent: 'agent:acme/payer@^1',
        input: { prompt: 'Pay bob 10.' },
        ...step,
      },
    ],
    outputs: { text: { value: '{{ steps.pay.output.text }}' } },
  };
}

/** Starts a run as alice and resolves once it waits (or ended). */
async function startWaiting(step?: Record<string, unknown>) {
  const started = await call('alice', 'POST', '/workflows/executions', {
    workflow: workflow(step),
  });
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  return settled(started.body['execution_id'] as string);
}

async function settled(id: string): Promise<Json> {
  for (let i = 0; i < 500; i++) {
    const { body } = await call('alice', 'GET', `/workflows/executions/${id}`);
    if (!['pending', 'running'].includes(body['status'] as string)) return body;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`execution ${id} did not settle`);
}

describe.each(STORES)('a tool call that needs approval on $name', ({ kind, skip }) => {
  beforeAll(async () => {
    if (!skip) await open(kind);
  });
  afterAll(async () => {
    if (skip) return;
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
    await schema?.release();
  });

  it.skipIf(skip)(
    'waits with the call shown, runs once approved, and no model turn is repeated',
    async () => {
      const waiting = await startWaiting();
      const id = waiting['execution_id'] as string;
      expect(waiting).toMatchObject({
        status: 'waiting',
        waiting_for: {
          kind: 'tool_call',
          step: 'pay',
          tool: 'payments_pay',
          arguments: { amount: 10, to: 'bob' },
          approvers: ['finance'],
          requested_by: { kind: 'api_key' },
          on_reject: 'continue',
        },
      });
      expect(typeof waiting['waiting_for'].expires_at).toBe('string');
      expect(paid).toEqual([]);
      expect(model.requests).toHaveLength(1);

      const inbox = await call('bob', 'GET', '/approvals');
      expect(
        inbox.body['executions'].map((e: { execution_id: string }) => e.execution_id),
      ).toContain(id);
      const own = await call('alice', 'POST', `/workflows/executions/${id}/approve`, {});
      expect(own.status).toBe(403);

      const approved = await call('bob', 'POST', `/workflows/executions/${id}/approve`, {
        comment: 'fine',
      });
      expect(approved.status, JSON.stringify(approved.body)).toBe(200);
      const done = await settled(id);
      expect(done['status'], JSON.stringify(done)).toBe('completed');
      expect(paid).toEqual([{ amount: 10, to: 'bob' }]);
      // One turn before the wait, one after: the first was replayed from the journal.
      expect(model.requests).toHaveLength(2);
      const output = done['result'].steps.pay.output;
      expect(output.text).toBe('tool said: {"paid":true}');
      expect(output.tool_calls).toMatchObject([
        { name: 'payments_pay', input: { amount: 10, to: 'bob' }, approved_by: expect.any(String) },
      ]);
      // Both turns counted once in the step's usage.
      expect(output.usage).toMatchObject({ input_tokens: 70, output_tokens: 10, tool_calls: 1 });
    },
  );

  it.skipIf(skip)(
    'charges a budget across runs once for the turns before the wait, none reserved after',
    async () => {
      const budgets = { maxTokens: 100_000, period: 'day' };
      const deployed = await call('alice', 'PUT', '/workflows/payout', {
        ...workflow(),
        budgets,
      });
      expect(deployed.status, JSON.stringify(deployed.body)).toBe(201);
      const started = await call('alice', 'POST', '/workflows/payout/executions', {
        inputs: {},
      });
      expect(started.status, JSON.stringify(started.body)).toBeLessThan(300);
      const waiting = await settled(started.body['execution_id'] as string);
      expect(waiting['status']).toBe('waiting');
      const id = waiting['execution_id'] as string;
      const approved = await call('bob', 'POST', `/workflows/executions/${id}/approve`, {});
      expect(approved.status).toBe(200);
      expect((await settled(id))['status']).toBe('completed');
      expect(model.requests).toHaveLength(2);
      // The replayed first turn neither reserved nor settled again: 34 + 46 tokens, once.
      const listed = await call('alice', 'GET', '/budgets');
      expect(listed.body['budgets']).toMatchObject([
        { workflow: 'payout', spent_tokens: 80, reserved_tokens: 0 },
      ]);
      expect((await call('alice', 'DELETE', '/workflows/payout')).status).toBeLessThan(300);
    },
  );

  it.skipIf(skip)(
    'reuses the results of the turn’s other tool calls, which keep their idempotency keys',
    async () => {
      firstTurn = [{ name: 'payments_quote', arguments: '{"amount":10}' }, PAY];
      const waiting = await startWaiting();
      const id = waiting['execution_id'] as string;
      expect(quoted).toHaveLength(1);
      const approved = await call('bob', 'POST', `/workflows/executions/${id}/approve`, {});
      expect(approved.status).toBe(200);
      const done = await settled(id);
      expect(done['status'], JSON.stringify(done)).toBe('completed');
      expect(model.requests).toHaveLength(2);
      expect(quoted).toEqual([`${id}/pay/tools/1`]);
      expect(payKeys).toEqual([`${id}/pay/tools/2`]);
      expect(done['result'].steps.pay.output.tool_calls).toMatchObject([
        { name: 'payments_quote', output: { fee: 1 } },
        { name: 'payments_pay', output: { paid: true } },
      ]);
    },
  );

  it.skipIf(skip)('replays a streamed model answer without asking again', async () => {
    const waiting = await startWaiting({ agent: 'agent:acme/streamer@^1' });
    const id = waiting['execution_id'] as string;
    expect(waiting['status']).toBe('waiting');
    expect(model.requests[0]!.body['stream']).toBe(true);
    const approved = await call('bob', 'POST', `/workflows/executions/${id}/approve`, {});
    expect(approved.status).toBe(200);
    const done = await settled(id);
    expect(done['status'], JSON.stringify(done)).toBe('completed');
    expect(paid).toEqual([{ amount: 10, to: 'bob' }]);
    expect(model.requests).toHaveLength(2);
    expect(done['result'].steps.pay.output.text).toBe('tool said: {"paid":true}');
  });

  it.skipIf(skip)('resumes on the langchain backend without repeating a model turn', async () => {
    const waiting = await startWaiting({ backend: 'langchain' });
    const id = waiting['execution_id'] as string;
    expect(waiting['status']).toBe('waiting');
    expect(model.requests).toHaveLength(1);
    const approved = await call('bob', 'POST', `/workflows/executions/${id}/approve`, {});
    expect(approved.status).toBe(200);
    const done = await settled(id);
    expect(done['status'], JSON.stringify(done)).toBe('completed');
    expect(paid).toEqual([{ amount: 10, to: 'bob' }]);
    expect(model.requests).toHaveLength(2);
  });

  it.skipIf(skip)(
    'runs with the approver’s edited arguments; a bad edit is refused and changes nothing',
    async () => {
      const waiting = await startWaiting();
      const id = waiting['execution_id'] as string;
      const bad = await call('bob', 'POST', `/workflows/executions/${id}/approve`, {
        arguments: { amount: 1000, to: 'bob' },
      });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({
        code: 'VALIDATION',
        details: { field: 'arguments.amount', constraint: 'maximum' },
      });
      const still = await call('alice', 'GET', `/workflows/executions/${id}`);
      expect(still.body['status']).toBe('waiting');

      const edited = await call('bob', 'POST', `/workflows/executions/${id}/approve`, {
        arguments: { amount: 5, to: 'bob' },
      });
      expect(edited.status, JSON.stringify(edited.body)).toBe(200);
      const done = await settled(id);
      expect(done['status']).toBe('completed');
      expect(paid).toEqual([{ amount: 5, to: 'bob' }]);
      expect(model.requests).toHaveLength(2);
      expect(done['result'].steps.pay.output.tool_calls[0]).toMatchObject({
        input: { amount: 5, to: 'bob' },
        edited_by: expect.any(String),
      });
      const audit = await server.runtime!.options.audit.store.read({ afterSeq: 0, limit: 500 });
      const edits = audit.filter(
        (entry) => entry.action === 'tool_call.edit' && entry.execution_id === id,
      );
      expect(edits).toMatchObject([{ decision: 'approved', step: 'pay', owner: 'acme' }]);
      expect(edits[0]!.reason).toContain('"amount":5');
    },
  );

  it.skipIf(skip)(
    'tells the model who rejected the call and why; the tool does not run',
    async () => {
      const waiting = await startWaiting();
      const id = waiting['execution_id'] as string;
      const rejected = await call('bob', 'POST', `/workflows/executions/${id}/reject`, {
        comment: 'too much',
      });
      expect(rejected.status, JSON.stringify(rejected.body)).toBe(200);
      const done = await settled(id);
      expect(done['status']).toBe('completed');
      expect(paid).toEqual([]);
      expect(model.requests).toHaveLength(2);
      const told = JSON.stringify(model.requests[1]!.body);
      expect(told).toContain('rejected by bob');
      expect(told).toContain('too much');
      expect(done['result'].steps.pay.output.tool_calls[0]).toMatchObject({
        name: 'payments_pay',
        error: { code: 'FORBIDDEN' },
      });
    },
  );

  it.skipIf(skip)(
    'fails the step on rejection with on_reject: fail (set on the step)',
    async () => {
      const waiting = await startWaiting({
        tool_approvals: {
          payments_pay: { approvers: ['finance'], timeout: 60, on_reject: 'fail' },
        },
      });
      const id = waiting['execution_id'] as string;
      expect(waiting['waiting_for']).toMatchObject({ on_reject: 'fail' });
      const rejected = await call('bob', 'POST', `/workflows/executions/${id}/reject`, {
        comment: 'no',
      });
      expect(rejected.status).toBe(200);
      const done = await settled(id);
      expect(done['status']).toBe('failed');
      expect(done['error']).toMatchObject({ code: 'FORBIDDEN' });
      expect(JSON.stringify(done['error'])).toContain('rejected by bob');
      expect(paid).toEqual([]);
      expect(model.requests).toHaveLength(1);
    },
  );

  it.skipIf(skip)('is rejected as expired when nobody decides in time', async () => {
    const waiting = await startWaiting();
    const id = waiting['execution_id'] as string;
    now += 601_000;
    const ended = await server.runtime!.deadlines.expireDue();
    expect(ended).toBeGreaterThanOrEqual(1);
    const done = await settled(id);
    expect(done['status']).toBe('completed');
    expect(paid).toEqual([]);
    expect(JSON.stringify(model.requests[1]!.body)).toContain('expired');
    const late = await call('bob', 'POST', `/workflows/executions/${id}/approve`, {});
    expect(late.status).toBe(409);
  });

  it.skipIf(skip)(
    'lets exactly one of two approvers at once decide; the other gets 409',
    async () => {
      const waiting = await startWaiting();
      const id = waiting['execution_id'] as string;
      const answers = await Promise.all([
        call('bob', 'POST', `/workflows/executions/${id}/approve`, {}),
        call('carol', 'POST', `/workflows/executions/${id}/reject`, { comment: 'no' }),
      ]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
      await settled(id);
      expect(model.requests).toHaveLength(2);
    },
  );

  it.skipIf(skip)('is not found for another owner’s approver, who changes nothing', async () => {
    const waiting = await startWaiting();
    const id = waiting['execution_id'] as string;
    const stranger = await call('eve', 'POST', `/workflows/executions/${id}/approve`, {});
    expect(stranger.status).toBe(404);
    expect((await call('eve', 'GET', '/approvals')).body['executions']).toEqual([]);
    const still = await call('alice', 'GET', `/workflows/executions/${id}`);
    expect(still.body['status']).toBe('waiting');
    await call('bob', 'POST', `/workflows/executions/${id}/reject`, {});
    await settled(id);
  });
});
