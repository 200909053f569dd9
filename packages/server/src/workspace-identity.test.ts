import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '@weft/identity';
import { TestIdentityProvider } from '@weft/identity/testing';
import { startServer, type RunningServer } from './start.js';

const idp = new TestIdentityProvider();
const work = mkdtempSync(join(tmpdir(), 'weft-server-workspaces-'));
let server: RunningServer;
let acmeKey: string;

beforeAll(async () => {
  await idp.start();
  server = await startServer({
    port: 0,
    dataDir: join(work, 'data'),
    logLevel: 'silent',
    identity: {
      oidc: { issuer: idp.url, audience: 'weft', ownerClaim: 'org', cooldownMs: 0 },
      auditorRoles: ['auditor'],
    },
  });
  const at = new Date().toISOString();
  acmeKey = (await createApiKey(server.store, { name: 'ci', owner: 'acme' }, at)).key;
});
afterAll(async () => {
  await server?.close();
  await idp.stop();
  rmSync(work, { recursive: true, force: true });
});

/** A JSON answer: the fields the tests read. */
interface Answer {
  [field: string]: unknown;
  executions?: { execution_id: string }[];
  entries?: { subject: string; owner: string | null }[];
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

/** A token of `sub` in organisation `org`, with roles. */
const member = (sub: string, org: unknown, roles: string[] = []) =>
  idp.sign({ sub, org, roles, preferred_username: sub });

const hello = { name: 'hello', steps: [{ name: 't', type: 'transform', input: { ok: true } }] };
const guarded = { ...hello, name: 'payout', authorization: { roles: ['finance'] } };

describe('workspaces: the owner of a token comes from WEFT_OIDC_OWNER_CLAIM', () => {
  it('shows the workspace in whoami; the person stays the subject', async () => {
    const answer = await call(await member('ada', 'acme'), '/auth/whoami');
    expect(answer).toMatchObject({
      status: 200,
      body: { kind: 'oidc', subject: 'ada', owner: 'acme', name: 'ada' },
    });
    const key = await call(acmeKey, '/auth/whoami');
    expect(key.body).toMatchObject({ kind: 'api_key', owner: 'acme' });
  });

  it('puts an API key of owner acme and tokens of org acme in one workspace, and no other', async () => {
    const started = await call(acmeKey, '/workflows/executions', { workflow: hello });
    expect(started.status).toBe(202);
    const id = started.body['execution_id'] as string;
    const ada = await member('ada', 'acme');
    expect((await call(ada, `/workflows/executions/${id}`)).status).toBe(200);
    const listed = await call(ada, '/workflows/executions');
    expect(listed.body.executions?.map((e) => e.execution_id)).toContain(id);
    const stranger = await member('eve', 'globex');
    expect((await call(stranger, `/workflows/executions/${id}`)).status).toBe(404);
    const theirs = await call(stranger, '/workflows/executions');
    expect(theirs.body.executions).toEqual([]);
  });

  it('refuses a token without the claim, or with one naming no single workspace, with 401', async () => {
    const missing = await call(await idp.sign({ sub: 'ada', roles: [] }), '/auth/whoami');
    expect(missing).toMatchObject({
      status: 401,
      body: { code: 'UNAUTHORIZED', details: { reason: 'missing_claim', claim: 'org' } },
    });
    for (const org of [['acme', 'globex'], 'oidc:ada', 7]) {
      const bad = await call(await member('ada', org), '/workflows/executions');
      expect(bad).toMatchObject({
        status: 401,
        body: { code: 'UNAUTHORIZED', details: { reason: 'bad_claim', claim: 'org' } },
      });
    }
    expect((await call(await member('ada', ['acme']), '/auth/whoami')).body['owner']).toBe('acme');
  });

  it("lets an auditor read their workspace's audit, not another's; others get 403", async () => {
    const ada = await member('ada', 'acme');
    expect((await call(ada, '/workflows/executions', { workflow: guarded })).status).toBe(403);
    const eve = await member('eve', 'globex');
    expect((await call(eve, '/workflows/executions', { workflow: guarded })).status).toBe(403);

    const acmeAudit = await call(await member('carol', 'acme', ['auditor']), '/audit');
    expect(acmeAudit.status).toBe(200);
    expect(acmeAudit.body.entries?.map((e) => [e.subject, e.owner])).toEqual([['ada', 'acme']]);
    const globexAudit = await call(await member('gus', 'globex', ['auditor']), '/audit?owner=acme');
    expect((globexAudit.body['entries'] as { subject: string }[]).map((e) => e.subject)).toEqual([
      'eve',
    ]);
    expect(await call(await member('carol', 'acme', ['auditor']), '/audit/verify')).toEqual({
      status: 200,
      body: { status: 'ok', scope: 'workspace' },
    });
    const refused = await call(ada, '/audit');
    expect(refused).toMatchObject({ status: 403, body: { details: { reason: 'not_auditor' } } });
    expect((await call(acmeKey, '/audit')).status).toBe(403);
  });
});

describe('workspaces: one owner for every user of the issuer', () => {
  let fixed: RunningServer;
  let shared: RunningServer;
  beforeAll(async () => {
    const start = (dir: string, owner?: string) =>
      startServer({
        port: 0,
        dataDir: join(work, dir),
        logLevel: 'silent',
        identity: {
          oidc: { issuer: idp.url, audience: 'weft', ...(owner ? { owner } : {}) },
        },
      });
    fixed = await start('fixed', 'acme');
    shared = await start('shared');
  });
  afterAll(async () => {
    await fixed?.close();
    await shared?.close();
  });

  const whoami = async (base: string, sub: string) => {
    const response = await fetch(`${base}/auth/whoami`, {
      headers: { authorization: `Bearer ${await idp.sign({ sub, org: 'ignored' })}` },
    });
    return ((await response.json()) as { owner: string }).owner;
  };

  it('is WEFT_OIDC_OWNER when set, else the shared oidc-users', async () => {
    expect(await whoami(fixed.url, 'ada')).toBe('acme');
    expect(await whoami(fixed.url, 'bob')).toBe('acme');
    expect(await whoami(shared.url, 'ada')).toBe('oidc-users');
    expect(await whoami(shared.url, 'bob')).toBe('oidc-users');
  });
});
