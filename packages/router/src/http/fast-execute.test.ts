import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { UnauthorizedError } from '@weft/core';
import { echoInstance, record, routerApp, type TestInstance } from '../test-support/instances.js';

const TOKEN = 'a-long-router-token-1234';
const KEY = 'weft_test_key_1';
const apps: Awaited<ReturnType<typeof routerApp>>[] = [];
const instances: TestInstance[] = [];

async function authenticate(authorization: string | undefined) {
  if (authorization !== `Bearer ${KEY}`) {
    throw new UnauthorizedError('the API key is not valid', { reason: 'invalid' });
  }
  return { owner: 'alice' };
}

/**
 * A router served on a loopback port with the fast path, and the same app for `inject`. The app
 * has a route of its own on `/static/execute` (as the server has `/actions/execute`) and counts
 * the requests that reach it (`seen`).
 */
async function served(options: Parameters<typeof routerApp>[0]) {
  const seen = { count: 0 };
  const made = await routerApp(options, (app) => {
    app.addHook('onRequest', (_request, _reply, done) => {
      seen.count++;
      done();
    });
    app.post('/static/execute', async () => ({ status: 'success', data: { by: 'static' } }));
  });
  apps.push(made);
  const instance = await echoInstance('a');
  instances.push(instance);
  await made.router.register(record(instance.url, { metadata: { instance_id: 'a' } }));
  const fast = made.router.fastPath(made.app);
  await made.app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(made.app.server.address() as AddressInfo).port}`;
  return { ...made, instance, base, fast, seen };
}

interface Call {
  url?: string;
  body?: string;
  headers?: Record<string, string>;
}

/** Status, JSON body and instance header of `call`, over the socket and through Fastify. */
async function both(base: string, app: Awaited<ReturnType<typeof routerApp>>['app'], call: Call) {
  const url = call.url ?? '/execute';
  const headers = { 'content-type': 'application/json', ...call.headers };
  const body = call.body ?? JSON.stringify({ action: 'echo.say', input: { n: 1 } });
  const wire = await fetch(`${base}${url}`, { method: 'POST', headers, body });
  const injected = await app.inject({ method: 'POST', url, headers, payload: body });
  return {
    wire: {
      status: wire.status,
      type: wire.headers.get('content-type'),
      instance: wire.headers.get('x-weft-instance-id'),
      body: await wire.json(),
    },
    framework: {
      status: injected.statusCode,
      type: injected.headers['content-type'] ?? null,
      instance: (injected.headers['x-weft-instance-id'] as string | undefined) ?? null,
      body: injected.json<unknown>(),
    },
  };
}

afterEach(async () => {
  for (const { app, router } of apps.splice(0)) {
    await app.close();
    await router.close();
  }
  for (const i of instances.splice(0)) await i.close();
});

describe('POST /execute fast path', () => {
  it('answers every case as the Fastify route does: success, credentials, bad bodies', async () => {
    const { base, app, instance } = await served({
      openExecute: false,
      token: TOKEN,
      authenticate,
    });
    const calls: Call[] = [
      { headers: { authorization: `Bearer ${TOKEN}` } },
      { headers: { authorization: `Bearer ${KEY}` } },
      { headers: { authorization: `bearer   ${TOKEN}  ` } },
      {},
      { headers: { authorization: 'Basic abc' } },
      { headers: { authorization: 'Bearer weft_not_a_key' } },
      { headers: { authorization: `Bearer ${TOKEN}` }, body: '{"action":' },
      { headers: { authorization: `Bearer ${TOKEN}` }, body: '[1]' },
      { headers: { authorization: `Bearer ${TOKEN}` }, body: '{"action":"echo.say"}' },
      { headers: { authorization: `Bearer ${TOKEN}` }, body: '{"action":"x","input":{}}' },
      {
        headers: { authorization: `Bearer ${TOKEN}` },
        body: '{"action":"echo.say","input":{},"extra":1}',
      },
      {
        headers: { authorization: `Bearer ${TOKEN}` },
        body: '{"action":"echo.nope","input":{}}',
      },
      {
        headers: { authorization: `Bearer ${TOKEN}`, 'x-weft-timeout-ms': 'soon' },
      },
      {
        headers: {
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/json; charset=utf-8',
        },
      },
    ];
    for (const call of calls) {
      const { wire, framework } = await both(base, app, call);
      expect(wire, JSON.stringify(call)).toEqual(framework);
    }
    // Every success reached the instance twice (fast path and Fastify), with the body as sent.
    expect(instance.calls.length).toBe(8);
    expect(instance.calls[0]!.body).toEqual({ action: 'echo.say', input: { n: 1 } });
  });

  it('leaves everything but a plain JSON POST /execute to Fastify', async () => {
    const { base, app } = await served({ openExecute: true, bodyLimit: 2048 });
    const big = JSON.stringify({ action: 'echo.say', input: { text: 'x'.repeat(4000) } });
    const calls: Call[] = [
      { url: '/echo/execute', body: '{"action":"say","input":{}}' },
      { headers: { 'content-type': 'text/plain' } },
      { body: big },
      { url: '/execute?x=1' },
      { body: '' },
    ];
    for (const call of calls) {
      const { wire, framework } = await both(base, app, call);
      expect(wire, JSON.stringify(call)).toEqual(framework);
    }
    const { wire } = await both(base, app, { body: big });
    expect(wire.status).toBe(413);
  });

  it('hands calls back to Fastify once disabled', async () => {
    const { base, app, fast } = await served({ openExecute: true });
    fast.disable();
    const { wire, framework } = await both(base, app, {});
    expect(wire).toEqual(framework);
    expect(wire.status).toBe(200);
  });

  it('answers POST /{plugin_slug}/execute as the Fastify route does, and leaves the app its own routes', async () => {
    const { base, app, instance, seen } = await served({ openExecute: false, token: TOKEN });
    const auth = { authorization: `Bearer ${TOKEN}` };
    const calls: Call[] = [
      { url: '/echo/execute', headers: auth, body: '{"action":"say","input":{"n":2}}' },
      { url: '/echo/execute', headers: auth, body: '{"action":"echo.say","input":{"n":3}}' },
      { url: '/echo/execute', headers: auth, body: '{"action":"other.say","input":{}}' },
      { url: '/echo/execute', headers: auth, body: '{"action":"nope","input":{}}' },
      { url: '/echo/execute', headers: auth, body: '{"action":"say"}' },
      { url: '/echo/execute', body: '{"action":"say","input":{}}' },
      { url: '/other/execute', headers: auth, body: '{"action":"say","input":{}}' },
      { url: '/Echo/execute', headers: auth, body: '{"action":"say","input":{}}' },
      { url: '/echo/execute?x=1', headers: auth, body: '{"action":"say","input":{}}' },
      { url: '/static/execute', headers: auth, body: '{"action":"say","input":{}}' },
    ];
    for (const call of calls) {
      const { wire, framework } = await both(base, app, call);
      expect(wire, JSON.stringify(call)).toEqual(framework);
    }
    // A bare action reached the instance qualified with the path's plugin.
    expect(instance.calls[0]!.body).toEqual({ action: 'echo.say', input: { n: 2 } });
    // Three successes (the last through Fastify for its query string), each sent twice.
    expect(instance.calls.length).toBe(6);
    // Over the socket, /echo/execute skipped the app; /static/execute is the app's own route.
    const post = (url: string) =>
      fetch(`${base}${url}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth },
        body: '{"action":"say","input":{}}',
      });
    const before = seen.count;
    expect((await post('/echo/execute')).status).toBe(200);
    expect(seen.count).toBe(before);
    expect(await (await post('/static/execute')).json()).toEqual({
      status: 'success',
      data: { by: 'static' },
    });
    expect(seen.count).toBe(before + 1);
  });
});
