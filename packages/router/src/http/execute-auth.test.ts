import { afterEach, describe, expect, it } from 'vitest';
import { UnauthorizedError } from '@weft/core';
import { MemoryRoutesStore } from '@weft/store/memory';
import { Router } from '../router.js';
import { echoInstance, record, routerApp, type TestInstance } from '../test-support/instances.js';

const TOKEN = 'a-long-router-token-1234';
const KEY = 'weft_test_key_1';
const apps: Awaited<ReturnType<typeof routerApp>>[] = [];
const instances: TestInstance[] = [];

/** Accepts `Bearer weft_test_key_1` only, as the server's authenticator accepts its API keys. */
async function authenticate(authorization: string | undefined) {
  if (authorization !== `Bearer ${KEY}`) {
    throw new UnauthorizedError('the API key is not valid', { reason: 'invalid' });
  }
  return { owner: 'alice' };
}

async function guardedRouter(options: Parameters<typeof routerApp>[0]) {
  const made = await routerApp({ openExecute: false, ...options });
  apps.push(made);
  const instance = await echoInstance('a');
  instances.push(instance);
  await made.router.register(record(instance.url, { metadata: { instance_id: 'a' } }));
  const execute = (headers: Record<string, string> = {}, url = '/execute') =>
    made.app.inject({
      method: 'POST',
      url,
      payload: { action: url === '/execute' ? 'echo.say' : 'say', input: { n: 1 } },
      headers,
    });
  return { ...made, instance, execute };
}

afterEach(async () => {
  for (const { app, router } of apps.splice(0)) {
    await app.close();
    await router.close();
  }
  for (const i of instances.splice(0)) await i.close();
});

describe('POST /execute credentials', () => {
  it('refuses a call without a credential with 401, naming what to send, and reaches no instance', async () => {
    const { execute, instance } = await guardedRouter({ authenticate, token: TOKEN });
    for (const url of ['/execute', '/echo/execute']) {
      const none = await execute({}, url);
      expect(none.statusCode).toBe(401);
      expect(none.json()).toMatchObject({
        status: 'error',
        code: 'UNAUTHORIZED',
        details: { scheme: 'bearer', reason: 'missing' },
      });
      expect(none.json().message).toContain('Authorization: Bearer <API key>');
    }
    const wrong = await execute({ authorization: 'Bearer weft_not_a_key' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().message).toBe('the API key is not valid');
    expect(instance.calls).toEqual([]);
  });

  it('runs the call with an API key the server accepts, or with the router token', async () => {
    const { execute, instance } = await guardedRouter({ authenticate, token: TOKEN });
    const byKey = await execute({ authorization: `Bearer ${KEY}` });
    expect(byKey.statusCode).toBe(200);
    expect(byKey.json()).toEqual({ status: 'success', data: { by: 'a', input: { n: 1 } } });
    const byToken = await execute({ authorization: `Bearer ${TOKEN}` }, '/echo/execute');
    expect(byToken.statusCode).toBe(200);
    expect(instance.calls).toHaveLength(2);
    // The caller's credential is not passed on to the instance.
    expect(instance.calls.map((c) => c.headers.authorization)).toEqual([undefined, undefined]);
  });

  it('takes the router token alone when the router has no authenticator', async () => {
    const { execute } = await guardedRouter({ token: TOKEN });
    expect((await execute({ authorization: `Bearer ${KEY}` })).json()).toMatchObject({
      code: 'UNAUTHORIZED',
      message: 'the router token is not valid',
    });
    expect((await execute({ authorization: `Bearer ${TOKEN}` })).statusCode).toBe(200);
  });

  it('runs calls without a credential only when openExecute is set', async () => {
    const { execute } = await guardedRouter({ authenticate, openExecute: true });
    expect((await execute()).statusCode).toBe(200);
  });

  it('refuses options under which execute would take no credential at all', () => {
    expect(() => new Router({ store: new MemoryRoutesStore() })).toThrow(
      expect.objectContaining({
        code: 'VALIDATION',
        details: { field: 'openExecute', constraint: 'credential' },
      }),
    );
  });
});

describe('GET /routes with a router token', () => {
  /** Accepts two keys of the server: an admin one and a plain one. */
  async function keys(authorization: string | undefined) {
    if (authorization === 'Bearer admin_key') return { owner: 'ops', admin: true };
    if (authorization === 'Bearer plain_key') return { owner: 'alice', admin: false };
    throw new UnauthorizedError('the API key is not valid', { reason: 'invalid' });
  }
  const table = (app: Awaited<ReturnType<typeof guardedRouter>>['app'], authorization?: string) =>
    app.inject({
      method: 'GET',
      url: '/routes',
      headers: authorization ? { authorization } : {},
    });

  it('answers the token and an admin key, refuses a plain key (403) and no or a bad one (401)', async () => {
    const { app } = await guardedRouter({ authenticate: keys, token: TOKEN });
    expect((await table(app, `Bearer ${TOKEN}`)).statusCode).toBe(200);
    const byAdmin = await table(app, 'Bearer admin_key');
    expect(byAdmin.statusCode).toBe(200);
    expect(byAdmin.json().instances).toHaveLength(1);
    const byPlain = await table(app, 'Bearer plain_key');
    expect(byPlain.statusCode).toBe(403);
    expect(byPlain.json()).toMatchObject({
      code: 'FORBIDDEN',
      details: { reason: 'admin_required' },
    });
    expect((await table(app)).statusCode).toBe(401);
    expect((await table(app, 'Bearer nope')).statusCode).toBe(401);
  });

  it('takes only the token when the router has no key store', async () => {
    const { app } = await guardedRouter({ authenticate: undefined, token: TOKEN });
    expect((await table(app, `Bearer ${TOKEN}`)).statusCode).toBe(200);
    expect((await table(app, 'Bearer admin_key')).statusCode).toBe(401);
  });
});
