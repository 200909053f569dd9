import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ExecutionContext } from '@weft/core';
import { LocalInvoker } from '../invoker/local-invoker.js';
import { ConnectorHost } from './host.js';
import { connectorServiceRoutes } from './routes.js';

const definition = {
  connector: {
    kind: 'function',
    name: 'text',
    namespace: 'demo',
    version: '1.2.0',
    timeout: 1,
    concurrency: 1,
  },
  actions: [
    {
      name: 'shout',
      input_schema: {
        type: 'object',
        required: ['text'],
        properties: { text: { type: 'string' } },
        additionalProperties: false,
      },
    },
    { name: 'fail' },
    { name: 'hang' },
    { name: 'number' },
    { name: 'whoami' },
    { name: 'slow' },
  ],
};

let app: FastifyInstance;
let health: Record<string, () => boolean | 'degraded'> = {};
const seen: ExecutionContext[] = [];

beforeEach(async () => {
  const invoker = new LocalInvoker();
  invoker.registerConnector(definition);
  invoker.registerHandler('text.shout', (input: { text: string }) => ({
    text: input.text.toUpperCase(),
  }));
  invoker.registerHandler('text.fail', () => {
    throw new Error('the upstream API said no');
  });
  invoker.registerHandler('text.hang', () => new Promise(() => undefined));
  invoker.registerHandler('text.number', () => 42);
  invoker.registerHandler('text.whoami', (_input, context) => {
    seen.push(context);
    return { mode: context.executionMode };
  });
  invoker.registerHandler('text.slow', async () => {
    await new Promise((r) => setTimeout(r, 100));
    return { at: Date.now() };
  });
  health = {};
  app = Fastify();
  await app.register(
    connectorServiceRoutes(
      new ConnectorHost({ invoker, healthChecks: { db: () => health['db']?.() ?? true } }),
    ),
  );
});
afterEach(() => app.close());

const execute = (payload: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: '/execute', payload: payload as object, headers });

describe('POST /execute of a connector service', () => {
  it('answers a success (docs/protocol.md#action-calls)', async () => {
    const answer = await execute({ action: 'text.shout', input: { text: 'hi' } });
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ status: 'success', data: { text: 'HI' } });
  });

  it('checks the input against the action schema: VALIDATION naming the field', async () => {
    const answer = await execute({ action: 'text.shout', input: { txt: 'hi' } });
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toMatchObject({
      status: 'error',
      code: 'VALIDATION',
      details: { field: 'input.text', constraint: 'required' },
    });
  });

  const bad: [string, unknown, string][] = [
    ['an unknown action', { action: 'text.whisper', input: {} }, 'action'],
    ['another plugin', { action: 'mail.shout', input: {} }, 'plugin'],
    ['an action without plugin', { action: 'shout', input: {} }, 'action'],
    ['a missing input', { action: 'text.shout' }, 'input'],
    ['an input that is a list', { action: 'text.shout', input: [] }, 'input'],
    ['a missing action', { input: {} }, 'action'],
    ['an unknown field', { action: 'text.shout', input: { text: 'a' }, extra: 1 }, 'extra'],
    ['a body that is a list', [1], 'body'],
  ];
  for (const [what, body, field] of bad) {
    it(`refuses ${what} with VALIDATION naming ${field}`, async () => {
      const answer = await execute(body);
      expect(answer.statusCode).toBe(400);
      expect(answer.json()).toMatchObject({
        status: 'error',
        code: 'VALIDATION',
        details: { field },
      });
    });
  }

  it('refuses a body that is not JSON with a VALIDATION (docs/protocol.md#error-object)', async () => {
    const answer = await app.inject({
      method: 'POST',
      url: '/execute',
      payload: '{"action":',
      headers: { 'content-type': 'application/json' },
    });
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toMatchObject({ status: 'error', code: 'VALIDATION' });
  });

  it('formats a handler exception as BACKEND_ERROR', async () => {
    const answer = await execute({ action: 'text.fail', input: {} });
    expect(answer.statusCode).toBe(502);
    expect(answer.json()).toMatchObject({
      code: 'BACKEND_ERROR',
      details: { backend: 'text', original_error: 'the upstream API said no' },
    });
  });

  it('refuses a handler output that is not an object', async () => {
    const answer = await execute({ action: 'text.number', input: {} });
    expect(answer.json()).toMatchObject({
      code: 'BACKEND_ERROR',
      message: expect.stringMatching(/not an object/),
    });
  });

  it('ends a call after the connector timeout with TIMEOUT', async () => {
    const answer = await execute({ action: 'text.hang', input: {} });
    expect(answer.statusCode).toBe(504);
    expect(answer.json()).toMatchObject({ code: 'TIMEOUT', details: { timeout_ms: 1000 } });
  });

  it('runs calls under the connector concurrency cap', async () => {
    const answers = await Promise.all(
      [1, 2].map(() => execute({ action: 'text.slow', input: {} })),
    );
    const [a, b] = answers.map((r) => r.json().data.at as number);
    expect(Math.abs(a! - b!)).toBeGreaterThanOrEqual(90);
  });

  it('gives handlers a self_hosted context named by the idempotency key', async () => {
    await execute({ action: 'text.whoami', input: {} }, { 'idempotency-key': 'exec-1/fetch/0' });
    expect(seen.at(-1)).toMatchObject({
      executionMode: 'self_hosted',
      workflowId: 'exec-1',
      stepName: 'fetch/0',
      idempotencyKey: 'exec-1/fetch/0',
    });
  });
});

describe('GET /healthz of a connector service', () => {
  it('answers ok, degraded, and unhealthy with 503 (docs/protocol.md#health)', async () => {
    expect((await app.inject('/healthz')).json()).toEqual({
      status: 'ok',
      version: '1.2.0',
      checks: { db: 'healthy' },
    });
    health['db'] = () => 'degraded';
    const degraded = await app.inject('/healthz');
    expect(degraded.statusCode).toBe(200);
    expect(degraded.json().status).toBe('degraded');
    health['db'] = () => false;
    const down = await app.inject('/healthz');
    expect(down.statusCode).toBe(503);
    expect(down.json()).toMatchObject({ status: 'unhealthy', checks: { db: 'unhealthy' } });
  });
});

describe('ConnectorHost and its caller going away', () => {
  it('fires the handler signal with CANCELED and answers CANCELED when the caller signal aborts', async () => {
    const invoker = new LocalInvoker();
    invoker.registerConnector(definition);
    let reason: unknown;
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    invoker.registerHandler(
      'text.hang',
      (_input, context) =>
        new Promise((_, reject) => {
          started();
          context.signal.addEventListener('abort', () => {
            reason = context.signal.reason;
            reject(reason);
          });
        }),
    );
    const host = new ConnectorHost({ invoker, recentResults: 10 });
    const caller = new AbortController();
    const answer = host.execute(
      { action: 'text.hang', input: {} },
      undefined,
      'run-1/hang',
      caller.signal,
    );
    await running;
    caller.abort();
    expect(await answer).toMatchObject({ body: { status: 'error', code: 'CANCELED' } });
    expect(reason).toMatchObject({ code: 'CANCELED' });
    // A canceled call is not remembered: the step delivered again runs again.
    expect(host.recent.size).toBe(0);
  });
});
