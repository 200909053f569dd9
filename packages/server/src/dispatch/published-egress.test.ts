import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WeftError, type ActionCall, type ExecutionContext } from '@weft/core';
import { createApiKey } from '@weft/identity';
import { buildServer, type BuiltServer } from '../build.js';
import { pluginDefinition } from '../test-support/harness.js';
import { createDispatch } from './index.js';

/**
 * Published `http` plugins are called from the server, to URLs any key holder writes: the
 * server's egress policy (WEFT_EGRESS_ALLOWLIST) applies, over real HTTP on loopback.
 */

/** Requests the loopback service received, as `METHOD host path`. */
const received: string[] = [];
let service: Server;
let port = 0;
const opened: { server: BuiltServer; dataDir: string }[] = [];

beforeAll(async () => {
  service = createServer((request, response) => {
    request.resume().on('end', () => {
      received.push(`${request.method} ${request.headers.host} ${request.url}`);
      const body =
        request.url === '/execute' ? { status: 'success', data: { via: 'service' } } : { ok: true };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  port = (service.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const { server, dataDir } of opened) {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  service.closeAllConnections();
  await new Promise<void>((resolve) => service.close(() => resolve()));
});

/** A server on SQLite (with `egressAllowlist` when given) and a key of owner `acme`. */
async function open(egressAllowlist?: string[]) {
  const dataDir = mkdtempSync(join(tmpdir(), 'weft-server-egress-'));
  const server = await buildServer(
    { dataDir, logLevel: 'silent', ...(egressAllowlist ? { egressAllowlist } : {}) },
    { logger: false },
  );
  opened.push({ server, dataDir });
  const key = await createApiKey(server.store, { name: 'acme' }, new Date().toISOString());
  const headers = { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' };
  const inject = (url: string, body: unknown, extra: Record<string, string> = {}) =>
    server.app.inject({
      method: 'POST',
      url,
      headers: { ...headers, ...extra },
      payload: JSON.stringify(body),
    });
  return { server, inject };
}

type Opened = Awaited<ReturnType<typeof open>>;

/** A plugin whose `http` connector has `base_url` and, unless `url` is null, a declarative request. */
function httpPlugin(slug: string, baseUrl: string, url: string | null = '/thing') {
  return pluginDefinition(slug, '1.0.0', {
    connector: { kind: 'http', name: slug, namespace: 'acme', version: '1.0.0', base_url: baseUrl },
    actions: [
      {
        name: 'get',
        description: 'Gets a thing',
        input_schema: { type: 'object' },
        output_schema: { type: 'object' },
        ...(url !== null ? { request: { method: 'GET', url } } : {}),
      },
    ],
  });
}

/** Publishes `plugin` and runs a one-step workflow calling it; answers the step. */
async function runStep(on: Opened, plugin: ReturnType<typeof httpPlugin>) {
  const published = await on.inject('/plugins', plugin);
  expect(published.statusCode, published.body).toBe(201);
  const workflow = {
    name: `call-${plugin.slug}`,
    steps: [{ name: 's', plugin: plugin.slug, action: 'get', input: {} }],
  };
  const answer = await on.inject('/workflows/executions', { workflow }, { prefer: 'wait=10' });
  expect(answer.statusCode, answer.body).toBe(200);
  const record = answer.json();
  return { status: record.status as string, step: record.result.steps.s };
}

const loopback = () => `http://127.0.0.1:${port}`;

describe('published http plugins and the egress policy', () => {
  let closed: Opened;
  let allowing: Opened;

  beforeAll(async () => {
    closed = await open();
    allowing = await open(['127.0.0.0/8']);
  });

  it('refuses a declarative request to a loopback address, and sends nothing', async () => {
    const before = received.length;
    const { status, step } = await runStep(closed, httpPlugin('loop', loopback()));
    expect(status).toBe('failed');
    expect(step.error).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'request.url', constraint: 'egress' },
    });
    expect(step.error.message).toContain('127.0.0.1 is a loopback address');
    expect(step.error.message).toContain('WEFT_EGRESS_ALLOWLIST');
    expect(step.attempts).toBe(1);
    expect(received.length).toBe(before);
  });

  it('refuses the connector service at a loopback base_url the same way', async () => {
    const before = received.length;
    const { step } = await runStep(closed, httpPlugin('svc', loopback(), null));
    expect(step.error).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'connector.base_url', constraint: 'egress' },
    });
    expect(received.length).toBe(before);
  });

  it('refuses a host name that resolves to loopback (localhost)', async () => {
    const before = received.length;
    const { step } = await runStep(closed, httpPlugin('named', `http://localhost:${port}`));
    expect(step.error).toMatchObject({ code: 'VALIDATION', details: { constraint: 'egress' } });
    expect(step.error.message).toMatch(
      /localhost resolves to (127\.0\.0\.1|::1): \S+ is a loopback address/,
    );
    expect(received.length).toBe(before);
  });

  it('calls loopback when WEFT_EGRESS_ALLOWLIST covers it', async () => {
    const before = received.length;
    const declarative = await runStep(allowing, httpPlugin('loop', loopback()));
    expect(declarative).toMatchObject({ status: 'completed', step: { output: { ok: true } } });
    const service = await runStep(allowing, httpPlugin('svc', loopback(), null));
    expect(service.step.output).toEqual({ via: 'service' });
    expect(received.slice(before)).toEqual([
      `GET 127.0.0.1:${port} /thing`,
      `POST 127.0.0.1:${port} /execute`,
    ]);
  });

  it('refuses the cloud metadata address before connecting, even with loopback allowed', async () => {
    const started = Date.now();
    const metadata = httpPlugin('meta', loopback(), 'http://169.254.169.254/latest/meta-data/');
    const { step } = await runStep(allowing, metadata);
    expect(step.error).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'request.url', constraint: 'egress' },
    });
    expect(step.error.message).toContain('169.254.169.254');
    // No connection was tried: an IP literal is refused by the check before fetch.
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('the egress of published plugins with a resolver (DNS names and rebinding)', () => {
  let on: Opened;

  beforeAll(async () => {
    on = await open();
    const published = await on.inject(
      '/plugins',
      httpPlugin('named', `http://api.example.test:${port}`),
    );
    expect(published.statusCode, published.body).toBe(201);
  });

  /** The server's actions over the published `named`, with this allowlist and resolver. */
  function call(allowlist: string[], resolve: (host: string) => Promise<string[]>) {
    const { actions } = createDispatch({
      router: on.server.router,
      registry: on.server.store,
      egressAllowlist: allowlist,
      resolve,
    });
    const signal = new AbortController().signal;
    const context: ExecutionContext = {
      aborted: false,
      workflowId: 'wf-1',
      stepName: 's',
      inputs: {},
      executionMode: 'cloud',
      environment: {},
      secrets: {},
      previousSteps: {},
      signal,
      idempotencyKey: 'wf-1/s',
      progress: () => undefined,
    };
    const target: ActionCall['target'] = { kind: 'plugin', slug: 'named' };
    return actions
      .invoker({ owner: 'acme', keyId: null })
      .invoke({ target, action: 'get', input: {}, context })
      .then((result) => result.output);
  }

  it('refuses a name resolving to loopback before connecting', async () => {
    const before = received.length;
    const error = await call([], async () => ['127.0.0.1']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeftError);
    expect(error).toMatchObject({ code: 'VALIDATION', details: { constraint: 'egress' } });
    expect((error as Error).message).toBe(
      `named.get: the request to api.example.test:${port} is refused: api.example.test resolves to 127.0.0.1: 127.0.0.1 is a loopback address; published plugins are called on public addresses only (allow it with WEFT_EGRESS_ALLOWLIST)`,
    );
    expect(received.length).toBe(before);
  });

  it('refuses at connect time a name re-pointed at loopback after the check', async () => {
    const before = received.length;
    let lookups = 0;
    const rebinding = async () => (++lookups === 1 ? ['93.184.216.34'] : ['127.0.0.1']);
    const error = await call([], rebinding).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'request.url', constraint: 'egress' },
    });
    expect((error as Error).message).toContain(
      'api.example.test resolves to 127.0.0.1: 127.0.0.1 is a loopback address; published plugins are called on public addresses only',
    );
    expect(lookups).toBe(2);
    expect(received.length).toBe(before);
  });

  it('connects through the checked lookup when the allowlist covers the address', async () => {
    const before = received.length;
    const answer = await call(['127.0.0.0/8'], async () => ['127.0.0.1']);
    expect(answer).toEqual({ ok: true });
    expect(received.slice(before)).toEqual([`GET api.example.test:${port} /thing`]);
  });
});
