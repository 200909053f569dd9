import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '@weft/identity';
import { TestIdentityProvider } from '@weft/identity/testing';
import { dropTestSchema, testSchemaName } from '@weft/store';
import type { ServerOptions } from './config.js';
import { startServer, type RunningServer } from './start.js';

const databaseUrl = process.env['WEFT_TEST_DATABASE_URL'];

/** Guarded: finance (or ops) with payments:write may deploy and start it; a lead approves. */
const PAYOUT = {
  name: 'payout',
  authorization: {
    enabled: true,
    roles: ['finance', 'ops'],
    permissions: ['payments:write'],
    approval: { required: true, approvers: ['lead'], timeout: 600 },
  },
  triggers: [
    { type: 'manual' },
    { type: 'webhook', path: '/payout', auth: { type: 'bearer', secret_name: 'PAYOUT_TOKEN' } },
  ],
  inputs: { amount: { type: 'number', required: false } },
  steps: [{ name: 'pay', type: 'transform', input: { paid: '{{ inputs.amount }}' } }],
};
const { authorization: _guard, ...STRIPPED } = PAYOUT;
const DISABLED = { ...PAYOUT, authorization: { ...PAYOUT.authorization, enabled: false } };

/** An execution id and a workflow name nobody has. */
const UNKNOWN_ID = '01900000-0000-7000-8000-000000000000';
const UNKNOWN_NAME = 'nothing-here';

/**
 * Every route of docs/openapi.json that takes an execution, deployment or approval id, with the
 * request the other organisation tries. A route added there without a line here fails the test.
 * `PUT /workflows/{name}` is apart: deployment names are per workspace, so a PUT of a name
 * another owner holds deploys the caller's own workflow of that name, leaving the other's alone.
 */
const BY_ID: Record<string, { body?: unknown }> = {
  'GET /workflows/executions/{id}': {},
  'POST /workflows/executions/{id}/cancel': {},
  'POST /workflows/executions/{id}/rerun': {},
  'POST /workflows/executions/{id}/approve': { body: { comment: 'ok' } },
  'POST /workflows/executions/{id}/reject': { body: { comment: 'no' } },
  'GET /workflows/executions/{id}/events': {},
  'GET /workflows/executions/{id}/definition': {},
  'GET /workflows/{name}': {},
  'DELETE /workflows/{name}': {},
  'POST /workflows/{name}/executions': { body: { inputs: { amount: 1 } } },
};

describe.each([
  { name: 'SQLite', kind: 'sqlite' as const, skip: false },
  {
    name: 'PostgreSQL (set WEFT_TEST_DATABASE_URL to run)',
    kind: 'postgres' as const,
    skip: !databaseUrl,
  },
])('two organisations on one server ($name)', ({ kind, skip }) => {
  const schema = testSchemaName();
  const dataDir = mkdtempSync(join(tmpdir(), 'weft-server-workspaces-'));
  const idp = new TestIdentityProvider();
  let server: RunningServer;
  const keys: Record<string, string> = {};
  /** acme's run of payout, waiting for a lead. */
  let waiting: string;

  beforeAll(async () => {
    if (skip) return;
    await idp.start();
    const options: ServerOptions = {
      port: 0,
      dataDir,
      logLevel: 'silent',
      triggers: { secretsEnvironment: { PAYOUT_TOKEN: 'tok' } },
      identity: {
        oidc: { issuer: idp.url, audience: 'weft', rolesClaim: 'roles', cooldownMs: 0 },
      },
      ...(kind === 'postgres' ? { databaseUrl, databaseSchema: schema } : {}),
    };
    server = await startServer(options, { logger: false });
    const at = new Date().toISOString();
    const make = async (name: string, grants: object) =>
      (keys[name] = (await createApiKey(server.store, { name, ...grants }, at)).key);
    const payer = { roles: ['finance'], permissions: ['payments:write'] };
    await make('clerk', { owner: 'acme', ...payer });
    await make('lead', { owner: 'acme', roles: ['lead'] });
    await make('colleague', { owner: 'acme' });
    // Look-alike grants in another organisation.
    await make('evil', {
      owner: 'evil',
      roles: ['lead', 'finance'],
      permissions: ['payments:write'],
    });
    await make('evilclerk', { owner: 'evil', ...payer });
    await make('root', { owner: 'ops', admin: true });
    expect((await call('PUT', '/workflows/payout', 'clerk', PAYOUT)).status).toBe(201);
    const started = await call('POST', '/workflows/payout/executions', 'clerk', {
      inputs: { amount: 1_000_000 },
    });
    expect(started.status).toBe(202);
    waiting = started.json.execution_id;
    expect((await settled(waiting)).status).toBe('waiting');
  }, 30_000);

  afterAll(async () => {
    if (skip) return;
    await server.close();
    await idp.stop();
    rmSync(dataDir, { recursive: true, force: true });
    if (kind === 'postgres') {
      await dropTestSchema(databaseUrl!, schema);
    }
  });

  /** A request as `who` (a key name, or a token). */
  async function call(method: string, path: string, who: string, body?: unknown) {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${keys[who] ?? who}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, text, json: text ? JSON.parse(text) : undefined };
  }

  async function settled(id: string, who = 'clerk') {
    for (let i = 0; i < 500; i++) {
      const { json } = await call('GET', `/workflows/executions/${id}`, who);
      if (!['pending', 'running'].includes(json.status)) return json;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`execution ${id} did not settle`);
  }

  /** What acme has: its run, its deployment (revisions, webhooks), its executions. */
  async function acmeState() {
    return {
      run: (await call('GET', `/workflows/executions/${waiting}`, 'clerk')).json,
      deployment: (await call('GET', '/workflows/payout', 'clerk')).json,
      executions: (await call('GET', '/workflows/executions?limit=100', 'clerk')).json,
    };
  }

  const audit = async (action: string) =>
    (await call('GET', '/audit?limit=1000', 'root')).json.entries.filter(
      (e: { action: string }) => e.action === action,
    );

  /** The close code and reason of an event socket. */
  function socketClose(id: string, who: string) {
    return new Promise<{ code: number; reason: string }>((resolve, reject) => {
      const socket = new WebSocket(
        `${server.url.replace('http', 'ws')}/workflows/executions/${id}/events`,
        { headers: { authorization: `Bearer ${keys[who] ?? who}` } },
      );
      socket.on('close', (code, reason) => resolve({ code, reason: String(reason) }));
      socket.on('error', reject);
    });
  }

  it.skipIf(skip)('the table names every route of the API that takes such an id', () => {
    const spec = JSON.parse(
      readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8'),
    ) as { paths: Record<string, Record<string, unknown>> };
    const routes = Object.entries(spec.paths).flatMap(([path, methods]) =>
      /^\/workflows\/(executions\/)?\{(id|name)\}/.test(path)
        ? Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`)
        : [],
    );
    expect(routes.filter((r) => r !== 'PUT /workflows/{name}').sort()).toEqual(
      Object.keys(BY_ID).sort(),
    );
  });

  it.skipIf(skip)(
    'another organisation gets the 404 of an unknown id from every such route, and changes nothing',
    async () => {
      const before = await acmeState();
      for (const [route, { body }] of Object.entries(BY_ID)) {
        const [method, template] = route.split(' ') as [string, string];
        const [mine, unknown] = template.includes('{id}')
          ? [waiting, UNKNOWN_ID]
          : ['payout', UNKNOWN_NAME];
        const url = (id: string) => template.replace(/\{(id|name)\}/, id);
        for (const who of ['evil', 'evilclerk']) {
          // Twice: a refusal is the same each time.
          for (let attempt = 0; attempt < 2; attempt++) {
            const theirs = await call(method, url(mine), who, body);
            const none = await call(method, url(unknown), who, body);
            expect({ route, who, status: theirs.status }).toEqual({ route, who, status: 404 });
            expect(theirs.text.replaceAll(mine, unknown)).toBe(none.text);
            expect(theirs.text).not.toMatch(/acme|lead|finance|forbidden/i);
          }
        }
      }
      const socket = await socketClose(waiting, 'evil');
      expect(socket.code).toBe(4404);
      const unknownSocket = await socketClose(UNKNOWN_ID, 'evil');
      expect(socket.reason.replaceAll(waiting, UNKNOWN_ID)).toBe(unknownSocket.reason);
      expect(await acmeState()).toEqual(before);
      expect(before.run.status).toBe('waiting');
    },
  );

  it.skipIf(skip)(
    'lists nothing of the other organisation: approvals, executions, deployments',
    async () => {
      for (const who of ['evil', 'evilclerk']) {
        expect((await call('GET', '/approvals', who)).json).toEqual({
          executions: [],
          next_cursor: null,
        });
        expect((await call('GET', '/workflows/executions', who)).json.executions).toEqual([]);
        expect((await call('GET', '/workflows', who)).json).toMatchObject({ total: 0 });
      }
      const forLead = await call('GET', '/approvals', 'lead');
      expect(forLead.json.executions.map((e: { execution_id: string }) => e.execution_id)).toEqual([
        waiting,
      ]);
      // The operator's admin key sees across owners.
      expect((await call('GET', `/workflows/executions/${waiting}`, 'root')).status).toBe(200);
    },
  );

  it.skipIf(skip)(
    'a token user of the identity provider holding role lead is a stranger to acme too',
    async () => {
      const token = await idp.sign({ sub: 'mallory', roles: ['lead', 'finance'] });
      expect((await call('GET', '/approvals', token)).json.executions).toEqual([]);
      for (const verdict of ['approve', 'reject']) {
        const theirs = await call('POST', `/workflows/executions/${waiting}/${verdict}`, token, {});
        const none = await call(
          'POST',
          `/workflows/executions/${UNKNOWN_ID}/${verdict}`,
          token,
          {},
        );
        expect(theirs.status).toBe(404);
        expect(theirs.text.replaceAll(waiting, UNKNOWN_ID)).toBe(none.text);
      }
      expect((await settled(waiting)).status).toBe('waiting');
    },
  );

  it.skipIf(skip)(
    'a PUT to a name the other organisation holds deploys its own, leaving acme’s unchanged',
    async () => {
      const before = await acmeState();
      // Its own payout, unguarded, without acme's webhook path (paths are one namespace).
      const own = { ...STRIPPED, triggers: [{ type: 'manual' }] };
      const created = await call('PUT', '/workflows/payout', 'evil', own);
      expect(created.status).toBe(201);
      expect(created.json).toMatchObject({ name: 'payout', revision: 1, previous_version: null });
      expect(created.text).not.toMatch(/acme|lead|finance/i);
      const theirs = await call('GET', '/workflows/payout', 'evil');
      expect(theirs.json).toMatchObject({ owner: 'evil', revisions: [{ revision: 1 }] });
      expect(theirs.json.definition.authorization).toBeUndefined();
      // Running it runs evil's workflow for evil; acme's guarded one is not reached.
      const run = await call('POST', '/workflows/payout/executions', 'evil', {
        inputs: { amount: 5 },
      });
      expect(run.status).toBe(202);
      // Unguarded, it completes with no approval; the run is evil's, a stranger to acme.
      expect(await settled(run.json.execution_id, 'evil')).toMatchObject({
        status: 'completed',
        workflow: 'payout',
      });
      const fromAcme = await call('GET', `/workflows/executions/${run.json.execution_id}`, 'clerk');
      expect(fromAcme.status).toBe(404);
      expect(await acmeState()).toEqual(before);
      // Deleting it deletes evil's only.
      expect((await call('DELETE', '/workflows/payout', 'evil')).status).toBe(200);
      expect((await call('GET', '/workflows/payout', 'evil')).status).toBe(404);
      expect(await acmeState()).toEqual(before);
      // A webhook path acme's workflow serves: refused without naming that workflow.
      const hook = await call('PUT', '/workflows/evil-hook', 'evilclerk', {
        ...PAYOUT,
        name: 'evil-hook',
      });
      expect(hook.status).toBe(409);
      expect(hook.json).toEqual({
        status: 'error',
        code: 'CONFLICT',
        message:
          'the webhook POST /hooks/payout is already served by another workflow; choose another path',
        details: { reason: 'route_taken', route: 'POST /payout' },
      });
      expect(await acmeState()).toEqual(before);
    },
  );

  it.skipIf(skip)(
    'inside acme a colleague reads the runs, but needs the roles to run, strip, disable or delete the guarded deployment',
    async () => {
      expect((await call('GET', `/workflows/executions/${waiting}`, 'colleague')).status).toBe(200);
      const run = await call('POST', '/workflows/payout/executions', 'colleague', {});
      expect(run.status).toBe(403);
      expect(run.json.details).toMatchObject({
        missing_roles: ['finance', 'ops'],
        missing_permissions: ['payments:write'],
      });

      const before = await acmeState();
      const deniesBefore = (await audit('workflow.deploy')).length;
      const changes: [string, unknown][] = [
        ['PUT', STRIPPED],
        ['PUT', DISABLED],
        ['PUT', PAYOUT],
        ['DELETE', undefined],
      ];
      for (const [method, body] of changes) {
        const first = await call(method, '/workflows/payout', 'colleague', body);
        const second = await call(method, '/workflows/payout', 'colleague', body);
        expect(first.status).toBe(403);
        expect(second.text).toBe(first.text);
        expect(first.json).toMatchObject({
          code: 'FORBIDDEN',
          details: {
            reason: 'guarded',
            workflow: 'payout',
            revision: 1,
            missing_roles: ['finance', 'ops'],
            missing_permissions: ['payments:write'],
          },
        });
        expect(first.json.message).toContain(
          `not authorized to ${method === 'PUT' ? 'redeploy' : 'undeploy'} workflow "payout"`,
        );
      }
      expect(await acmeState()).toEqual(before);
      expect(before.deployment).toMatchObject({ revision: 1, webhooks: ['POST /hooks/payout'] });
      const deploys = (await audit('workflow.deploy')).slice(deniesBefore);
      expect(deploys).toHaveLength(6);
      expect(deploys.every((e: { decision: string }) => e.decision === 'deny')).toBe(true);
      // acme's only: evil deleted its own payout (above), audited in its own workspace.
      const deletes = (await audit('workflow.delete')).filter(
        (e: { owner: string }) => e.owner === 'acme',
      );
      expect(deletes).toHaveLength(2);
      expect(deletes[0]).toMatchObject({
        decision: 'deny',
        workflow: 'payout',
        credential: 'api_key',
        reason: expect.stringContaining('revision 1'),
        missing: { roles: ['finance', 'ops'], permissions: ['payments:write'] },
      });
    },
  );

  it.skipIf(skip)(
    'a holder of the grants may change and delete it, each change audited with its revision',
    async () => {
      // A clerk of the other organisation deploys its own workflow under another name.
      const other = await call('PUT', '/workflows/evil-payout', 'evilclerk', {
        ...PAYOUT,
        name: 'evil-payout',
        triggers: [{ type: 'manual' }],
      });
      expect(other.status).toBe(201);
      const redeployed = await call('PUT', '/workflows/payout', 'clerk', {
        ...PAYOUT,
        version: '1.1.0',
      });
      expect(redeployed.status).toBe(200);
      expect(redeployed.json.revision).toBe(2);
      const [deployed] = (await audit('workflow.deploy')).slice(-1);
      expect(deployed).toMatchObject({
        decision: 'allow',
        workflow: 'payout',
        credential: 'api_key',
        reason: expect.stringContaining('revision 2 deployed'),
        required: { roles: ['finance', 'ops'], permissions: ['payments:write'] },
      });
      // Evil cannot delete acme's; acme's colleague cannot delete evil's: 404 both.
      expect((await call('DELETE', '/workflows/evil-payout', 'colleague')).status).toBe(404);
      expect((await call('DELETE', '/workflows/payout', 'evilclerk')).status).toBe(404);
      const removed = await call('DELETE', '/workflows/payout', 'clerk');
      expect(removed.status).toBe(200);
      const [deleted] = (await audit('workflow.delete')).slice(-1);
      expect(deleted).toMatchObject({
        decision: 'allow',
        workflow: 'payout',
        reason: expect.stringContaining('revision 2 undeployed'),
      });
      expect((await call('GET', '/workflows/payout', 'clerk')).status).toBe(404);
      expect((await call('GET', '/workflows/evil-payout', 'evilclerk')).status).toBe(200);
    },
  );
  it.skipIf(skip)(
    'a workflow step never calls across owners, and a name taken over shows its new owner’s revisions only',
    async () => {
      const helper = { name: 'acme-helper', steps: [{ name: 't', type: 'transform', input: {} }] };
      expect((await call('PUT', '/workflows/acme-helper', 'clerk', helper)).status).toBe(201);
      const calling = (name: string) => ({
        name: 'caller',
        steps: [{ name: 'c', type: 'workflow', workflow: name }],
      });
      // Deployed as if acme-helper were unknown (the same warning), and its run cannot reach it.
      const theirs = await call('PUT', '/workflows/caller', 'evil', calling('acme-helper'));
      expect(theirs.status).toBe(201);
      expect(theirs.json.warnings).toEqual([
        expect.stringContaining('workflow "acme-helper" is not defined'),
      ]);
      const run = await call('POST', '/workflows/caller/executions', 'evil', {});
      expect(run.status).toBe(202);
      const ended = await settled(run.json.execution_id, 'evil');
      expect(ended.status).toBe('failed');
      expect(JSON.stringify(ended)).toContain('acme-helper');
      // payout was undeployed by acme (above), freeing its webhook path: evil deploys its own
      // payout again (its revision 2: revisions count per owner), with nothing of acme's history.
      const taken = await call('PUT', '/workflows/payout', 'evilclerk', PAYOUT);
      expect(taken.status).toBe(200);
      expect(taken.json).toMatchObject({ revision: 2, previous_version: null });
      const detail = await call('GET', '/workflows/payout', 'evilclerk');
      expect(detail.json).toMatchObject({ owner: 'evil', deployed_by: 'evil' });
      expect(detail.json.revisions.map((r: { revision: number }) => r.revision)).toEqual([2, 1]);
      expect((await call('GET', '/workflows/payout', 'clerk')).status).toBe(404);
      expect((await call('DELETE', '/workflows/payout', 'evilclerk')).status).toBe(200);
    },
  );
  it.skipIf(skip)(
    'an admin key (the operator) may strip a guard: allowed and audited as an admin change',
    async () => {
      const vault = { ...PAYOUT, name: 'vault', triggers: [{ type: 'manual' }] };
      expect((await call('PUT', '/workflows/vault', 'clerk', vault)).status).toBe(201);
      const { authorization: _block, ...bare } = vault;
      // Another key may not name an owner not its own; an admin key names acme with ?owner=.
      const notYours = await call('PUT', '/workflows/vault?owner=acme', 'evilclerk', bare);
      expect(notYours.status).toBe(403);
      expect(notYours.json.details).toEqual({ reason: 'owner_not_yours', field: 'owner' });
      const stripped = await call('PUT', '/workflows/vault?owner=acme', 'root', bare);
      expect(stripped.status).toBe(200);
      expect(stripped.json.revision).toBe(2);
      const detail = await call('GET', '/workflows/vault', 'clerk');
      expect(detail.json).toMatchObject({ owner: 'acme', revision: 2 });
      expect(detail.json.definition.authorization).toBeUndefined();
      const [entry] = (await audit('workflow.deploy')).slice(-1);
      expect(entry).toMatchObject({
        decision: 'allow',
        workflow: 'vault',
        reason: expect.stringContaining('admin key'),
      });
    },
  );
  it.skipIf(skip)(
    'an event of another organisation starts none of acme’s workflows and answers as a topic nobody hears',
    async () => {
      const listening = {
        name: 'on-pay',
        triggers: [
          { type: 'event', source: 'custom', topic: 'payments' },
          { type: 'event', source: 'webhook', topic: '/pay-events' },
        ],
        steps: [{ name: 't', type: 'transform', input: { ok: true } }],
      };
      expect((await call('PUT', '/workflows/on-pay', 'clerk', listening)).status).toBe(201);
      const before = (await call('GET', '/workflows/executions?limit=100', 'clerk')).json;
      for (const who of ['evil', 'evilclerk']) {
        const theirs = await call('POST', '/events/payments', who, { amount: 1 });
        const none = await call('POST', '/events/nobody', who, { amount: 1 });
        expect(theirs.status).toBe(202);
        expect(theirs.text.replaceAll('payments', 'nobody')).toBe(none.text);
        const hook = await call('POST', '/hooks/pay-events', who, { amount: 1 });
        const noHook = await call('POST', '/hooks/nobody-hears', who, { amount: 1 });
        expect(hook.status).toBe(404);
        expect(hook.text.replaceAll('pay-events', 'nobody-hears')).toBe(noHook.text);
      }
      expect((await call('GET', '/workflows/executions?limit=100', 'clerk')).json).toEqual(before);
      const own = await call('POST', '/events/payments', 'colleague', { amount: 1 });
      expect(own.json.started.map((s: { workflow: string }) => s.workflow)).toEqual(['on-pay']);
      const ownHook = await call('POST', '/hooks/pay-events', 'colleague', { amount: 1 });
      expect(ownHook.status).toBe(202);
      expect(ownHook.json.started).toHaveLength(1);
    },
  );
});
