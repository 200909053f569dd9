import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { Router } from '../router.js';
import { record, routerApp } from '../test-support/instances.js';

let app: FastifyInstance;
let router: Router;

beforeEach(async () => {
  ({ app, router } = await routerApp());
});
afterEach(async () => {
  await app.close();
  await router.close();
});

const register = (body: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: '/register', payload: body as object, headers });
const routes = async () => (await app.inject({ method: 'GET', url: '/routes' })).json();

describe('POST /register', () => {
  it('answers 201 with the response (docs/router.md#registration), then 200 for the same instance, keeping registered_at', async () => {
    const first = await register(
      record('http://127.0.0.1:4100', { metadata: { instance_id: 'a-1', region: 'eu' } }),
    );
    expect(first.statusCode).toBe(201);
    expect(first.json()).toEqual({
      status: 'registered',
      plugin_slug: 'echo',
      instance_id: 'a-1',
      registered_at: '2026-03-01T12:00:00.000Z',
    });
    const again = await register(
      record('http://127.0.0.1:4101', { metadata: { instance_id: 'a-1' } }),
    );
    expect(again.statusCode).toBe(200);
    expect(again.json().registered_at).toBe('2026-03-01T12:00:00.000Z');
    const table = await routes();
    expect(table.instances).toHaveLength(1);
    expect(table.instances[0]).toMatchObject({
      url: 'http://127.0.0.1:4101',
      health_check_url: 'http://127.0.0.1:4101/healthz',
      health: 'unknown',
      last_check_at: null,
      consecutive_failures: 0,
      in_flight: 0,
    });
  });

  it('derives a stable instance_id from the url when metadata gives none', async () => {
    const a = (await register(record('http://127.0.0.1:4100/svc/'))).json();
    const b = await register(record('http://127.0.0.1:4100/svc'));
    expect(a.instance_id).toMatch(/^i-[0-9a-f]{16}$/);
    expect(b.statusCode).toBe(200);
    expect(b.json().instance_id).toBe(a.instance_id);
  });

  const bad: [string, Record<string, unknown>, string, string][] = [
    ['a missing plugin_slug', { plugin_slug: undefined }, 'plugin_slug', 'required'],
    ['a slug with capitals', { plugin_slug: 'Echo' }, 'plugin_slug', 'pattern'],
    ['a version that is not semver', { version: 'v1' }, 'version', 'semver'],
    ['a missing url', { url: undefined }, 'url', 'required'],
    ['a relative url', { url: '/svc' }, 'url', 'url'],
    ['an ftp url', { url: 'ftp://127.0.0.1/x' }, 'url', 'url'],
    ['a url with credentials', { url: 'http://u:p@127.0.0.1:1' }, 'url', 'no_credentials'],
    ['a url with a query', { url: 'http://127.0.0.1:1/?a=b' }, 'url', 'no_query'],
    ['a link-local url', { url: 'http://169.254.169.254/latest' }, 'url', 'egress'],
    ['a link-local url in hex', { url: 'http://0xA9FEA9FE/' }, 'url', 'egress'],
    ['the AWS IPv6 metadata address', { url: 'http://[fd00:ec2::254]/' }, 'url', 'egress'],
    ['a mapped link-local address', { url: 'http://[::ffff:169.254.1.1]/' }, 'url', 'egress'],
    [
      'a link-local health_check_url',
      { health_check_url: 'http://169.254.1.1/healthz' },
      'health_check_url',
      'egress',
    ],
    [
      'a health_check_url that is not a URL',
      { health_check_url: 'healthz' },
      'health_check_url',
      'url',
    ],
    ['empty actions', { actions: [] }, 'actions', 'minItems'],
    ['actions that are not a list', { actions: 'say' }, 'actions', 'type'],
    ['an action name with a dot', { actions: ['a.b'] }, 'actions.0', 'pattern'],
    ['duplicate actions', { actions: ['say', 'say'] }, 'actions', 'uniqueItems'],
    [
      'an instance_id with a slash',
      { metadata: { instance_id: 'a/b' } },
      'metadata.instance_id',
      'pattern',
    ],
    ['an empty region', { metadata: { region: '' } }, 'metadata.region', 'minLength'],
    ['a region that is a number', { metadata: { region: 7 } }, 'metadata.region', 'type'],
    ['a version that is a number', { version: 1 }, 'version', 'type'],
    ['metadata that is not an object', { metadata: 'x' }, 'metadata', 'type'],
    ['an unknown field', { colour: 'red' }, 'colour', 'additionalProperties'],
  ];
  for (const [what, change, field, constraint] of bad) {
    it(`refuses ${what} with VALIDATION naming ${field}, leaving the table unchanged`, async () => {
      await register(record('http://127.0.0.1:4100', { metadata: { instance_id: 'kept' } }));
      const before = await routes();
      const body: Record<string, unknown> = { ...record('http://127.0.0.1:4200'), ...change };
      for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
      const answer = await register(body);
      expect(answer.statusCode).toBe(400);
      expect(answer.json()).toMatchObject({
        status: 'error',
        code: 'VALIDATION',
        details: { field, constraint },
      });
      expect(await routes()).toEqual(before);
    });
  }

  it('refuses a body that is not JSON', async () => {
    const answer = await app.inject({
      method: 'POST',
      url: '/register',
      payload: '{"plugin_slug":',
      headers: { 'content-type': 'application/json' },
    });
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toMatchObject({ code: 'VALIDATION', details: { field: 'body' } });
  });
});

describe('registration protection and egress allowlist', () => {
  it('needs the router token for register, deregister, the table and execute', async () => {
    const guarded = await routerApp({ token: 'a-long-router-token-1234', openExecute: false });
    try {
      const body = record('http://127.0.0.1:4100', { metadata: { instance_id: 'x' } });
      const none = await guarded.app.inject({ method: 'POST', url: '/register', payload: body });
      expect(none.statusCode).toBe(401);
      expect(none.json()).toMatchObject({ code: 'UNAUTHORIZED', details: { scheme: 'bearer' } });
      const wrong = await guarded.app.inject({
        method: 'POST',
        url: '/register',
        payload: body,
        headers: { authorization: 'Bearer not-the-token-at-all' },
      });
      expect(wrong.statusCode).toBe(401);
      expect((await guarded.store.list()).length).toBe(0);
      const auth = { authorization: 'Bearer a-long-router-token-1234' };
      expect(
        (
          await guarded.app.inject({
            method: 'POST',
            url: '/register',
            payload: body,
            headers: auth,
          })
        ).statusCode,
      ).toBe(201);
      expect((await guarded.app.inject({ method: 'GET', url: '/routes' })).statusCode).toBe(401);
      expect(
        (await guarded.app.inject({ method: 'DELETE', url: '/register/echo/x' })).statusCode,
      ).toBe(401);
      expect((await guarded.store.list()).length).toBe(1);
      const refused = await guarded.app.inject({
        method: 'POST',
        url: '/execute',
        payload: { action: 'other.say', input: {} },
      });
      expect(refused.json().code).toBe('UNAUTHORIZED');
      const call = await guarded.app.inject({
        method: 'POST',
        url: '/execute',
        payload: { action: 'other.say', input: {} },
        headers: auth,
      });
      expect(call.json().code).toBe('UNAVAILABLE');
      expect(
        (await guarded.app.inject({ method: 'DELETE', url: '/register/echo/x', headers: auth }))
          .statusCode,
      ).toBe(200);
    } finally {
      await guarded.app.close();
      await guarded.router.close();
    }
  });

  it('accepts a link-local url inside WEFT_EGRESS_ALLOWLIST', async () => {
    const allowed = await routerApp({ egressAllowlist: ['169.254.10.0/24'] });
    try {
      const ok = await allowed.app.inject({
        method: 'POST',
        url: '/register',
        payload: record('http://169.254.10.7:8000'),
      });
      expect(ok.statusCode).toBe(201);
      const other = await allowed.app.inject({
        method: 'POST',
        url: '/register',
        payload: record('http://169.254.169.254'),
      });
      expect(other.json().details).toMatchObject({ field: 'url', constraint: 'egress' });
    } finally {
      await allowed.app.close();
      await allowed.router.close();
    }
  });
});

describe('DELETE /register/{plugin_slug}/{instance_id}', () => {
  it('removes the instance and answers deregistered, then 404', async () => {
    await register(record('http://127.0.0.1:4100', { metadata: { instance_id: 'a-1' } }));
    const gone = await app.inject({ method: 'DELETE', url: '/register/echo/a-1' });
    expect(gone.statusCode).toBe(200);
    expect(gone.json()).toMatchObject({
      status: 'deregistered',
      plugin_slug: 'echo',
      instance_id: 'a-1',
    });
    expect((await routes()).instances).toEqual([]);
    const again = await app.inject({ method: 'DELETE', url: '/register/echo/a-1' });
    expect(again.statusCode).toBe(404);
    expect(again.json().code).toBe('NOT_FOUND');
    const bad = await app.inject({ method: 'DELETE', url: '/register/Echo/a-1' });
    expect(bad.json()).toMatchObject({ code: 'VALIDATION', details: { field: 'plugin_slug' } });
  });
});
