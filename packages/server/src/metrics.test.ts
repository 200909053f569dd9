import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '@weft/identity';
import { wantsJson } from './metrics.js';
import { startServer, type RunningServer } from './start.js';

describe('GET /metrics needs an admin key (listening server, loopback)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'weft-metrics-'));
  let server: RunningServer;
  let admin: string;
  let plain: string;

  beforeAll(async () => {
    server = await startServer({ port: 0, dataDir, logLevel: 'silent' }, { logger: false });
    const at = new Date().toISOString();
    admin = (await createApiKey(server.store, { name: 'ops', admin: true }, at)).key;
    plain = (await createApiKey(server.store, { name: 'acme' }, at)).key;
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const scrape = (authorization?: string) =>
    fetch(`${server.url}/metrics`, authorization ? { headers: { authorization } } : {});

  it('refuses a scrape without a key or with a bad key with 401 UNAUTHORIZED', async () => {
    for (const [authorization, reason] of [
      [undefined, 'missing'],
      ['Bearer weft_000000000000_nope', 'invalid'],
      ['Basic abc', 'malformed'],
    ] as const) {
      const response = await scrape(authorization);
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({
        status: 'error',
        code: 'UNAUTHORIZED',
        details: { reason },
      });
    }
  });

  it('refuses a key that is not an admin key with 403 FORBIDDEN', async () => {
    const response = await scrape(`Bearer ${plain}`);
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({
      status: 'error',
      code: 'FORBIDDEN',
      details: { reason: 'not_admin' },
    });
  });

  it('answers an admin key with the Prometheus text', async () => {
    const response = await scrape(`Bearer ${admin}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await response.text()).toMatch(/^weft_executions_in_flight\{replica="[^"]+"\} 0$/m);
  });

  it('reports the executions waiting to be claimed as a queue depth, without a broker', async () => {
    const text = await (await scrape(`Bearer ${admin}`)).text();
    expect(text).toMatch(/^weft_queue_depth\{topic="executions",group="runtime"\} 0$/m);
  });
});

describe('GET /metrics counts webhooks, registry requests and the process (listening server)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'weft-metrics-'));
  const SECRET = 'webhook-secret-for-metrics';
  let server: RunningServer;
  let admin: string;

  beforeAll(async () => {
    server = await startServer(
      {
        port: 0,
        dataDir,
        logLevel: 'silent',
        triggers: { secretsEnvironment: { GH_SECRET: SECRET } },
      },
      { logger: false },
    );
    admin = (
      await createApiKey(server.store, { name: 'ops', admin: true }, new Date().toISOString())
    ).key;
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const call = (method: string, path: string, body?: string, headers = {}) =>
    fetch(`${server.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${admin}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body } : {}),
    });

  it('scrapes webhook outcomes, registry routes and process metrics, as text and as JSON', async () => {
    const deployed = await call(
      'PUT',
      '/workflows/push',
      JSON.stringify({
        name: 'push',
        triggers: [
          {
            type: 'webhook',
            path: '/github',
            method: 'POST',
            auth: { type: 'hmac-sha256', secret_name: 'GH_SECRET', header: 'X-Hub-Signature-256' },
          },
        ],
        steps: [{ name: 't', type: 'transform', input: { ok: true } }],
      }),
    );
    expect(deployed.status).toBe(201);
    const body = JSON.stringify({ ref: 'main' });
    const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
    const hook = (sig: string, path = '/hooks/github') =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': sig },
        body,
      });
    expect((await hook(signature)).status).toBe(202);
    const wrong = `sha256=${'0'.repeat(64)}`;
    expect((await hook(wrong)).status).toBe(401);
    expect((await hook(wrong)).status).toBe(401);
    expect((await hook(signature, '/hooks/nowhere')).status).toBe(404);
    const registered = await call(
      'POST',
      '/register',
      JSON.stringify({
        plugin_slug: 'echo',
        version: '1.0.0',
        url: 'http://127.0.0.1:9',
        actions: ['say'],
      }),
    );
    expect(registered.status).toBe(201);
    expect((await call('GET', '/plugins/no-such-plugin')).status).toBe(404);
    expect((await call('GET', '/plugins/other-plugin')).status).toBe(404);

    const text = await (await call('GET', '/metrics')).text();
    const line = (name: string, labels: string) =>
      text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
    expect(line('weft_webhook_requests_total', 'outcome="accepted",reason="none"')).toMatch(/ 1$/);
    expect(line('weft_webhook_requests_total', 'outcome="refused",reason="bad_signature"')).toMatch(
      / 2$/,
    );
    expect(line('weft_webhook_requests_total', 'outcome="refused",reason="not_found"')).toMatch(
      / 1$/,
    );
    // The route pattern, never the URL: two plugins, one series.
    expect(line('weft_registry_requests_total', 'route="/plugins/:slug",status="404"')).toMatch(
      / 2$/,
    );
    expect(text).not.toContain('no-such-plugin');
    expect(text).toMatch(/^process_cpu_seconds_total [0-9.e-]+$/m);
    expect(text).toMatch(/^process_resident_memory_bytes [0-9.e+]+$/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds [0-9.e-]+$/m);
    expect(text).toMatch(/^nodejs_heap_used_bytes [0-9.e+]+$/m);
    expect(text).toMatch(/^weft_router_instances\{health="[a-z]+"\} 1$/m);

    const json = await call('GET', '/metrics', undefined, { accept: 'application/json' });
    expect(json.status).toBe(200);
    expect(json.headers.get('content-type')).toMatch(/^application\/json/);
    const { metrics } = (await json.json()) as {
      metrics: { name: string; type: string; points: { labels: object; value?: number }[] }[];
    };
    const webhooks = metrics.find((m) => m.name === 'weft_webhook_requests_total');
    expect(webhooks?.type).toBe('counter');
    expect(webhooks?.points).toContainEqual({
      labels: { outcome: 'refused', reason: 'bad_signature' },
      value: 2,
    });
    expect(metrics.find((m) => m.name === 'process_resident_memory_bytes')?.type).toBe('gauge');
    expect(metrics.find((m) => m.name === 'weft_executions_in_flight')).toBeDefined();
  });
});

describe('wantsJson', () => {
  it('gives JSON only to a client that prefers it over text', () => {
    expect(wantsJson(undefined)).toBe(false);
    expect(wantsJson('application/json')).toBe(true);
    expect(wantsJson('application/json, text/plain;q=0.5')).toBe(true);
    expect(wantsJson('text/plain;version=0.0.4;q=0.5,*/*;q=0.1')).toBe(false);
    expect(
      wantsJson('application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5'),
    ).toBe(false);
    expect(wantsJson('text/plain, application/json;q=0.9')).toBe(false);
    expect(wantsJson('application/json;q=0')).toBe(false);
  });
});
