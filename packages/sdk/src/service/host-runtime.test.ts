import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KeepingInvoker } from '../test-support/keeping-invoker.js';
import { ConnectorHost } from './host.js';
import { connectorServiceRoutes } from './routes.js';

let app: FastifyInstance;
let invoker: KeepingInvoker;

beforeEach(async () => {
  // A function connector cannot enforce these limits: best effort lets the call through, so that
  // the test sees what reached the invoker (strict mode refuses it: sandbox/kind-limits.test.ts).
  invoker = new KeepingInvoker({ sandbox: { mode: 'best-effort' } });
  invoker.registerConnector({
    connector: { kind: 'function', name: 'text', namespace: 'demo', version: '1.0.0', timeout: 60 },
    actions: [{ name: 'echo' }, { name: 'wait' }],
  });
  invoker.registerHandler('text.echo', (input: Record<string, unknown>) => input);
  invoker.registerHandler(
    'text.wait',
    (_input, context) =>
      new Promise((_resolve, reject) =>
        context.signal.addEventListener('abort', () => reject(new Error('aborted'))),
      ),
  );
  app = Fastify();
  await app.register(connectorServiceRoutes(new ConnectorHost({ invoker })));
});
afterEach(() => app.close());

const execute = (payload: unknown) =>
  app.inject({ method: 'POST', url: '/execute', payload: payload as object });

describe('the runtime of an execute request (a weft extension)', () => {
  it('passes the runtime to the invoker with the call', async () => {
    const runtime = { resources: { cpu: '0.5', memory: '64MB' }, limits: { maxProcesses: 8 } };
    const answer = await execute({ action: 'text.echo', input: { a: 1 }, runtime });
    expect(answer.json()).toEqual({ status: 'success', data: { a: 1 } });
    expect(invoker.calls[0]).toMatchObject({ action: 'echo', runtime });
  });

  it('leaves runtime out of the call when the request has none', async () => {
    await execute({ action: 'text.echo', input: {} });
    expect(invoker.calls[0]).not.toHaveProperty('runtime');
  });

  it("ends the call at the runtime's timeout instead of the connector's", async () => {
    const answer = await execute({
      action: 'text.wait',
      input: {},
      runtime: { resources: { timeout: 1 } },
    });
    expect(answer.statusCode).toBe(504);
    expect(answer.json()).toMatchObject({ code: 'TIMEOUT', details: { timeout_ms: 1000 } });
  });

  const bad: [string, unknown, string, string][] = [
    ['cpu over the limit', { resources: { cpu: '8' } }, 'runtime.resources.cpu', 'limit'],
    [
      'a memory that is no size',
      { resources: { memory: '5 parsecs' } },
      'runtime.resources.memory',
      'quantity',
    ],
    [
      'a timeout over 600 s',
      { resources: { timeout: 900 } },
      'runtime.resources.timeout',
      'schema',
    ],
    ['an unknown field', { resources: { disk: 1 } }, 'runtime.resources.disk', 'schema'],
    ['a runtime that is no object', 'fast', 'runtime', 'schema'],
  ];
  for (const [what, runtime, field, constraint] of bad) {
    it(`refuses ${what} with VALIDATION naming ${field}`, async () => {
      const answer = await execute({ action: 'text.echo', input: {}, runtime });
      expect(answer.statusCode).toBe(400);
      expect(answer.json()).toMatchObject({ code: 'VALIDATION', details: { field, constraint } });
      expect(invoker.calls).toHaveLength(0);
    });
  }
});
