import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '@weft/identity';
import { TestIdentityProvider, unsignedToken } from '@weft/identity/testing';
import { startServer, type RunningServer } from './start.js';

const idp = new TestIdentityProvider();
const work = mkdtempSync(join(tmpdir(), 'weft-server-identity-'));
const accessFile = join(work, 'access.yaml');
let server: RunningServer;
let admin: string;

beforeAll(async () => {
  await idp.start();
  writeFileSync(accessFile, 'roles:\n  finance:\n    permissions: [payments:approve]\n');
  server = await startServer({
    port: 0,
    dataDir: join(work, 'data'),
    logLevel: 'silent',
    identity: {
      oidc: { issuer: idp.url, audience: 'weft', rolesClaim: 'realm_access.roles', cooldownMs: 0 },
      accessFile,
      accessFilePollMs: 20,
    },
  });
  admin = (await createApiKey(server.store, { name: 'ops', admin: true }, new Date().toISOString()))
    .key;
});
afterAll(async () => {
  await server?.close();
  await idp.stop();
  rmSync(work, { recursive: true, force: true });
});

/** A JSON answer: the fields the tests read. */
interface Answer {
  [field: string]: unknown;
  details?: { reason?: string };
  executions?: { execution_id: string }[];
  permissions?: string[];
}

/** A request to the listening server with a bearer credential. */
async function call(credential: string, path: string, body?: unknown) {
  const response = await fetch(`${server.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${credential}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Answer };
}

const user = (sub: string, roles: string[] = []) =>
  idp.sign({ sub, realm_access: { roles }, preferred_username: sub });

describe('weft server with identity-provider tokens', () => {
  it('knows a token user, their roles and the permissions the access file grants them', async () => {
    const answer = await call(await user('ada', ['finance']), '/auth/whoami');
    expect(answer).toEqual({
      status: 200,
      body: {
        kind: 'oidc',
        subject: 'ada',
        owner: 'oidc-users',
        name: 'ada',
        admin: false,
        roles: ['finance'],
        permissions: ['payments:approve'],
      },
    });
  });

  it('puts every user of the issuer in one workspace when no owner setting is given', async () => {
    const workflow = {
      name: 'mine',
      steps: [{ name: 't', type: 'transform', input: { ok: true } }],
    };
    const ada = await user('ada');
    const started = await call(ada, '/workflows/executions', { workflow });
    expect(started.status).toBe(202);
    const id = started.body['execution_id'] as string;
    expect((await call(ada, `/workflows/executions/${id}`)).status).toBe(200);
    expect((await call(await user('bob'), `/workflows/executions/${id}`)).status).toBe(200);
    const listed = await call(ada, '/workflows/executions');
    expect(listed.body.executions?.map((e) => e.execution_id)).toEqual([id]);
    // An API key meets them under the documented owner; another owner's key does not.
    const at = new Date().toISOString();
    const shared = await createApiKey(server.store, { name: 'ci', owner: 'oidc-users' }, at);
    expect((await call(shared.key, `/workflows/executions/${id}`)).status).toBe(200);
    const other = await createApiKey(server.store, { name: 'acme' }, at);
    expect((await call(other.key, `/workflows/executions/${id}`)).status).toBe(404);
  });

  it('answers 401 with the error object for every bad token', async () => {
    const now = Math.floor(Date.now() / 1000);
    const tokens: [string, string][] = [
      [await idp.sign({ exp: now - 300 }), 'expired'],
      [await idp.sign({ nbf: now + 600 }), 'not_yet_valid'],
      [await idp.sign({ iss: 'https://other.example.com' }), 'wrong_issuer'],
      [await idp.sign({ aud: 'other' }), 'wrong_audience'],
      [unsignedToken({ iss: idp.url, aud: 'weft', sub: 'x', exp: now + 60 }), 'alg_not_allowed'],
      [await idp.sign({}, { header: { kid: 'injected"; DROP TABLE keys' } }), 'unknown_key'],
      [(await idp.sign()).slice(0, -4), 'bad_signature'],
      [await idp.sign({ realm_access: { roles: 'finance' } }), 'bad_claim'],
      [await idp.sign({ padding: 'x'.repeat(9000) }), 'too_large'],
      ['eyJhbGciOiJSUzI1NiJ9.%%%.sig', 'malformed'],
    ];
    for (const [token, reason] of tokens) {
      const answer = await call(token, '/workflows/executions');
      expect({ status: answer.status, reason: answer.body.details?.reason }).toEqual({
        status: 401,
        reason,
      });
      expect(answer.body).toMatchObject({ status: 'error', code: 'UNAUTHORIZED' });
      expect(answer.body['message']).not.toContain(token);
    }
  });

  it('gives API keys roles and permissions over HTTP (admin keys only)', async () => {
    const created = await call(admin, '/auth/keys', {
      name: 'svc',
      roles: ['finance', 'ops'],
      permissions: ['payments:write'],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      roles: ['finance', 'ops'],
      permissions: ['payments:write'],
    });
    const whoami = await call(created.body['key'] as string, '/auth/whoami');
    expect(whoami.body).toMatchObject({
      kind: 'api_key',
      owner: 'svc',
      roles: ['finance', 'ops'],
      permissions: ['payments:approve', 'payments:write'],
    });
    const bad = await call(admin, '/auth/keys', { name: 'x', permissions: ['Payments'] });
    expect(bad.status).toBe(400);
    expect(bad.body['code']).toBe('VALIDATION');
    expect((await call(created.body['key'] as string, '/auth/keys', { name: 'y' })).status).toBe(
      403,
    );
    expect((await call(await user('ada'), '/auth/keys', { name: 'y' })).status).toBe(403);
  });

  it('reloads the access file when it changes', async () => {
    const token = await user('carol', ['finance']);
    const permissions = async () => (await call(token, '/auth/whoami')).body.permissions ?? [];
    writeFileSync(
      accessFile,
      'roles:\n  finance:\n    permissions: [payments:approve, reports:read]\n',
    );
    await until(async () => (await permissions()).length === 2);
    expect(await permissions()).toEqual(['payments:approve', 'reports:read']);
    writeFileSync(accessFile, 'roles:\n  finance:\n    permissions: [reports:read]\n');
    await until(async () => (await permissions()).length === 1);
    expect(await permissions()).toEqual(['reports:read']);
  });
});

describe('weft server when the identity provider is down', () => {
  let down: RunningServer;
  beforeAll(async () => {
    down = await startServer({
      port: 0,
      dataDir: join(work, 'down'),
      logLevel: 'silent',
      identity: {
        oidc: { issuer: idp.url, audience: 'weft', cacheMaxAgeMs: 0, discoveryRetryMs: 0 },
      },
    });
  });
  afterAll(async () => {
    idp.mode = 'up';
    await down?.close();
  });

  it('refuses tokens with 503 UNAVAILABLE (never allows), and API keys still work', async () => {
    const token = await idp.sign();
    const key = (await createApiKey(down.store, { name: 'acme' }, new Date().toISOString())).key;
    idp.mode = 'down';
    const response = await fetch(`${down.url}/workflows/executions`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ status: 'error', code: 'UNAVAILABLE' });
    const withKey = await fetch(`${down.url}/workflows/executions`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(withKey.status).toBe(200);
    idp.mode = 'up';
    const back = await fetch(`${down.url}/workflows/executions`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(back.status).toBe(200);
  });
});

/** Waits (at most 5 s) until `condition` holds. */
async function until(condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in 5 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
