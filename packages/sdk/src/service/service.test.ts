import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createConnectorService, type ConnectorService } from './service.js';

/** A real HTTP peer standing in for the router's two registration routes. */
async function fakeRouter(answers: number[]) {
  const requests: { method: string; url: string; body: unknown; auth: string | undefined }[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      requests.push({
        method: req.method!,
        url: req.url!,
        body: text ? JSON.parse(text) : undefined,
        auth: req.headers.authorization,
      });
      const status = req.method === 'DELETE' ? 200 : (answers.shift() ?? 201);
      res.statusCode = status;
      res.setHeader('content-type', 'application/json');
      res.end(
        status < 300
          ? JSON.stringify({
              status: 'registered',
              plugin_slug: 'greet',
              instance_id: 'x',
              registered_at: new Date().toISOString(),
            })
          : JSON.stringify({
              status: 'error',
              code: status === 400 ? 'VALIDATION' : 'UNAVAILABLE',
              message: 'no',
              details: { field: 'url', constraint: 'egress' },
            }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, requests, close: () => new Promise((r) => server.close(r)) };
}

const connector = {
  connector: { kind: 'function', name: 'greet', namespace: 'demo', version: '1.0.0' },
  actions: [{ name: 'hello' }, { name: 'bye' }],
};
const services: ConnectorService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.close();
});

describe('createConnectorService', () => {
  it('registers with backoff until the router answers, and deregisters on close', async () => {
    const router = await fakeRouter([503, 503]);
    const service = await createConnectorService({
      connector,
      handlers: { hello: () => ({ hi: true }) },
      routerUrl: router.url,
      routerToken: 'tok',
      instanceId: 'greet-1',
      region: 'eu',
      handleSignals: false,
      retry: { initialMs: 10 },
      logger: pino({ level: 'silent' }),
    });
    expect(router.requests).toHaveLength(3);
    expect(router.requests[2]).toMatchObject({
      method: 'POST',
      url: '/register',
      auth: 'Bearer tok',
      body: {
        plugin_slug: 'greet',
        version: '1.0.0',
        url: service.url,
        actions: ['hello', 'bye'],
        health_check_url: `${service.url}/healthz`,
        metadata: { instance_id: 'greet-1', region: 'eu' },
      },
    });
    const answer = await fetch(`${service.url}/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'greet.hello', input: {} }),
    });
    expect(await answer.json()).toEqual({ status: 'success', data: { hi: true } });
    await service.close();
    expect(router.requests.at(-1)).toMatchObject({
      method: 'DELETE',
      url: '/register/greet/greet-1',
    });
    await expect(fetch(`${service.url}/healthz`)).rejects.toThrow();
    await router.close();
  });

  it('stops at once when the router refuses the record, and closes its port', async () => {
    const router = await fakeRouter([400]);
    await expect(
      createConnectorService({
        connector,
        routerUrl: router.url,
        handleSignals: false,
        logger: pino({ level: 'silent' }),
      }),
    ).rejects.toMatchObject({ code: 'VALIDATION', details: { field: 'url' } });
    expect(router.requests).toHaveLength(1);
    await router.close();
  });

  it('registers again on an interval, so that a dropped instance comes back', async () => {
    const router = await fakeRouter([]);
    const service = await createConnectorService({
      connector,
      routerUrl: router.url,
      reregisterMs: 50,
      handleSignals: false,
      logger: pino({ level: 'silent' }),
    });
    await new Promise((r) => setTimeout(r, 300));
    await service.close();
    const posts = router.requests.filter((r) => r.method === 'POST');
    expect(posts.length).toBeGreaterThanOrEqual(3);
    expect(new Set(posts.map((p) => JSON.stringify(p.body))).size).toBe(1);
    await router.close();
  });

  it('serves without registering when no router is given', async () => {
    const service = await createConnectorService({
      connector,
      routerUrl: '',
      handleSignals: false,
      logger: pino({ level: 'silent' }),
    });
    services.push(service);
    expect(service.registration).toBeUndefined();
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
  });
});
