import { createHmac } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  EnvironmentSecretsProvider,
  UnauthorizedError,
  keyPrincipal,
  type Principal,
} from '@weft/core';
import { MemoryDeploymentStore, MemoryTriggerStore } from '@weft/store/memory';
import { RecordingStarter } from '../triggers/test-support.js';
import { createTriggers, type Triggers } from './create-triggers.js';

/** Keys of three owners (`operators` owns the workflows directory), and an admin key. */
const KEYS: Record<string, Principal> = {
  'Bearer acme': keyPrincipal({ keyId: 'k-acme', owner: 'acme' }),
  'Bearer other': keyPrincipal({ keyId: 'k-other', owner: 'other' }),
  'Bearer root': keyPrincipal({ keyId: 'k-root', owner: 'ops', admin: true }),
  'Bearer operators': keyPrincipal({ keyId: 'k-operators', owner: 'operators' }),
};

const hooked = (name: string) => ({
  name,
  triggers: [
    { type: 'manual' },
    {
      type: 'webhook',
      path: `/${name}`,
      auth: { type: 'hmac-sha256', secret_name: 'HOOK_SECRET', header: 'X-Signature' },
    },
  ],
  steps: [{ name: 'noop', type: 'transform', input: { ok: true } }],
});

let app: FastifyInstance;
let triggers: Triggers;
let starter: RecordingStarter;

beforeEach(async () => {
  starter = new RecordingStarter();
  triggers = createTriggers({
    start: starter.start,
    authenticate: async (header) => {
      const principal = KEYS[header ?? ''];
      if (!principal) throw new UnauthorizedError('bad key', { reason: 'invalid' });
      return principal;
    },
    triggerStore: new MemoryTriggerStore(),
    deploymentStore: new MemoryDeploymentStore(),
    secrets: new EnvironmentSecretsProvider({ HOOK_SECRET: 's3cret' }),
    defaultOwner: 'operators',
  });
  app = Fastify();
  await app.register(triggers.plugin);
  await triggers.start();
});
afterEach(async () => {
  await triggers.close();
  await app.close();
});

const put = (name: string, key: string, body: unknown = hooked(name)) =>
  app.inject({
    method: 'PUT',
    url: `/workflows/${name}`,
    headers: { authorization: key, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });

const signedPost = (path: string, body: string) =>
  app.inject({
    method: 'POST',
    url: `/hooks${path}`,
    headers: {
      'content-type': 'application/json',
      'x-signature': createHmac('sha256', 's3cret').update(body).digest('hex'),
    },
    payload: body,
  });

describe('who executions of a deployed workflow belong to', () => {
  it('runs webhook executions for the owner of the key that deployed the workflow', async () => {
    expect((await put('orders', 'Bearer acme')).statusCode).toBe(201);
    expect((await signedPost('/orders', '{"id":1}')).statusCode).toBe(202);
    expect(starter.requests[0]).toMatchObject({ owner: 'acme', trigger: { type: 'webhook' } });
    expect(starter.requests[0]!.keyId).toBeUndefined();
  });

  it('runs them acting as the deployer with the grants recorded at deployment', async () => {
    KEYS['Bearer acme'] = keyPrincipal({
      keyId: 'k-acme',
      owner: 'acme',
      name: 'ci',
      roles: ['ops'],
      permissions: ['orders:write'],
    });
    try {
      expect((await put('orders', 'Bearer acme')).statusCode).toBe(201);
      // Grants changed after the deployment do not change what its triggers act as.
      KEYS['Bearer acme'] = keyPrincipal({ keyId: 'k-acme', owner: 'acme' });
      expect((await signedPost('/orders', '{"id":1}')).statusCode).toBe(202);
      expect(starter.requests[0]!.principal).toMatchObject({
        kind: 'api_key',
        subject: 'k-acme',
        owner: 'acme',
        admin: false,
        roles: ['ops'],
        permissions: ['orders:write'],
      });
      // By hand, the caller's own grants count.
      expect((await run('orders', 'Bearer acme')).statusCode).toBe(202);
      expect(starter.requests[1]!.principal).toMatchObject({ roles: [], permissions: [] });
    } finally {
      KEYS['Bearer acme'] = keyPrincipal({ keyId: 'k-acme', owner: 'acme' });
    }
  });

  it('runs manual executions for the caller, who can then poll them', async () => {
    await put('orders', 'Bearer acme');
    expect((await run('orders', 'Bearer acme')).statusCode).toBe(202);
    // An admin key runs the workflows of its own owner: `orders` is acme's, not ops'.
    expect((await run('orders', 'Bearer root')).statusCode).toBe(404);
    expect(starter.requests.map((r) => [r.owner, r.keyId])).toEqual([['acme', 'k-acme']]);
  });

  it('runs workflows deployed without a key (the workflows directory) for the default owner', async () => {
    await triggers.service.deploy(hooked('nightly'), 'file:/srv/nightly.yaml', null);
    expect((await signedPost('/nightly', '{}')).statusCode).toBe(202);
    expect(starter.requests[0]).toMatchObject({ owner: 'operators' });
  });
});

const get = (url: string, key: string) =>
  app.inject({ method: 'GET', url, headers: { authorization: key } });
const run = (name: string, key: string) =>
  app.inject({
    method: 'POST',
    url: `/workflows/${name}/executions`,
    headers: { authorization: key },
  });
const names = async (key: string, query = '') =>
  (await get(`/workflows${query}`, key)).json().workflows.map((w: { name: string }) => w.name);

describe('reading deployments of other owners', () => {
  beforeEach(async () => {
    expect((await put('orders', 'Bearer acme')).statusCode).toBe(201);
    expect((await put('invoices', 'Bearer other')).statusCode).toBe(201);
    await triggers.service.deploy(hooked('nightly'), 'file:/srv/nightly.yaml', null);
  });

  it('lists only the deployments of the key’s owner', async () => {
    const acme = await get('/workflows', 'Bearer acme');
    expect(acme.statusCode).toBe(200);
    expect(acme.json()).toMatchObject({ total: 1, workflows: [{ name: 'orders' }] });
    expect(await names('Bearer other')).toEqual(['invoices']);
  });

  it('answers another owner’s name with the 404 of an unknown name', async () => {
    const theirs = await get('/workflows/invoices', 'Bearer acme');
    const unknown = await get('/workflows/nothing', 'Bearer acme');
    expect(theirs.statusCode).toBe(404);
    expect(unknown.statusCode).toBe(404);
    expect(theirs.json()).toEqual({
      status: 'error',
      code: 'NOT_FOUND',
      message: 'no deployed workflow is named "invoices"',
      details: { name: 'invoices' },
    });
    // Same status and body as an unknown name: nothing tells that the name is taken.
    expect(theirs.body.replaceAll('invoices', 'nothing')).toBe(unknown.body);
    expect((await get('/workflows/orders', 'Bearer acme')).json()).toMatchObject({
      name: 'orders',
      deployed_by: 'acme',
      revisions: [{ revision: 1 }],
    });
  });

  it('lets an admin key read another owner’s deployments by naming it with ?owner=', async () => {
    expect(await names('Bearer root')).toEqual([]);
    expect(await names('Bearer root', '?owner=acme')).toEqual(['orders']);
    expect(await names('Bearer root', '?owner=operators')).toEqual(['nightly']);
    expect((await get('/workflows/invoices', 'Bearer root')).statusCode).toBe(404);
    const read = await get('/workflows/invoices?owner=other', 'Bearer root');
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({ owner: 'other', name: 'invoices' });
  });

  it('finds nothing when another key names an owner not its own with ?owner=', async () => {
    expect(await names('Bearer acme', '?owner=other')).toEqual([]);
    expect(await names('Bearer acme', '?owner=acme')).toEqual(['orders']);
    const theirs = await get('/workflows/invoices?owner=other', 'Bearer acme');
    expect(theirs.statusCode).toBe(404);
    expect(theirs.json()).toMatchObject({ code: 'NOT_FOUND', details: { name: 'invoices' } });
    const del = await app.inject({
      method: 'DELETE',
      url: '/workflows/invoices?owner=other',
      headers: { authorization: 'Bearer acme' },
    });
    expect(del.statusCode).toBe(404);
    expect(await names('Bearer other')).toEqual(['invoices']);
  });

  it('shows workflows of the workflows directory to keys of the default owner', async () => {
    expect(await names('Bearer operators')).toEqual(['nightly']);
    expect((await get('/workflows/nightly', 'Bearer operators')).statusCode).toBe(200);
    expect((await get('/workflows/nightly', 'Bearer acme')).statusCode).toBe(404);
  });

  it('refuses to start another owner’s workflow by hand with 404, starting nothing', async () => {
    const response = await run('invoices', 'Bearer acme');
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'NOT_FOUND', details: { name: 'invoices' } });
    expect((await run('nightly', 'Bearer acme')).statusCode).toBe(404);
    expect((await run('invoices', 'Bearer root')).statusCode).toBe(404);
    expect(starter.requests).toEqual([]);
  });
});

describe('names are per owner', () => {
  /** `orders` without its webhook: webhook paths are one namespace across owners. */
  const manualOnly = (version: string) => ({
    ...hooked('orders'),
    version,
    triggers: [{ type: 'manual' }],
  });

  it('deploys a name another owner holds as the caller’s own, leaving the other’s unchanged', async () => {
    expect((await put('orders', 'Bearer acme')).statusCode).toBe(201);
    const theirs = await put('orders', 'Bearer other', manualOnly('2.0.0'));
    expect(theirs.statusCode).toBe(201);
    expect(theirs.json()).toMatchObject({ name: 'orders', revision: 1, previous_version: null });
    expect((await triggers.service.get('acme', 'orders'))?.version).toBe('1.0.0');
    expect((await get('/workflows/orders', 'Bearer acme')).json()).toMatchObject({
      owner: 'acme',
      version: '1.0.0',
      revisions: [{ revision: 1 }],
    });
    expect((await get('/workflows/orders', 'Bearer other')).json()).toMatchObject({
      owner: 'other',
      version: '2.0.0',
      revisions: [{ revision: 1 }],
    });
    // Each runs its own; acme's webhook still serves acme.
    expect((await run('orders', 'Bearer other')).statusCode).toBe(202);
    expect((await run('orders', 'Bearer acme')).statusCode).toBe(202);
    expect((await signedPost('/orders', '{}')).statusCode).toBe(202);
    expect(starter.requests.map((r) => [r.owner, r.workflow.version])).toEqual([
      ['other', '2.0.0'],
      ['acme', '1.0.0'],
      ['acme', '1.0.0'],
    ]);
    // A redeploy by either is a revision of its own only.
    expect((await put('orders', 'Bearer other', manualOnly('2.1.0'))).json()).toMatchObject({
      revision: 2,
      previous_version: '2.0.0',
    });
    expect((await triggers.service.get('acme', 'orders'))?.revision).toBe(1);
    // Deleting one leaves the other serving.
    const del = await app.inject({
      method: 'DELETE',
      url: '/workflows/orders',
      headers: { authorization: 'Bearer other' },
    });
    expect(del.statusCode).toBe(200);
    expect((await triggers.service.get('acme', 'orders'))?.version).toBe('1.0.0');
    expect(triggers.webhooks.routesOf('acme/orders')).toEqual(['POST /hooks/orders']);
    expect((await run('orders', 'Bearer other')).statusCode).toBe(404);
  });

  it('keeps two owners’ schedules of one name apart', async () => {
    const scheduled = (cron: string) => ({
      ...hooked('nightly'),
      triggers: [{ type: 'schedule', cron, timezone: 'UTC' }],
    });
    expect((await put('nightly', 'Bearer acme', scheduled('0 9 * * *'))).statusCode).toBe(201);
    expect((await put('nightly', 'Bearer other', scheduled('0 18 * * *'))).statusCode).toBe(201);
    const acme = triggers.scheduler.nextFires('acme/nightly');
    const other = triggers.scheduler.nextFires('other/nightly');
    expect(acme).toHaveLength(1);
    expect(other).toHaveLength(1);
    expect(acme[0]).not.toBe(other[0]);
    await app.inject({
      method: 'DELETE',
      url: '/workflows/nightly',
      headers: { authorization: 'Bearer other' },
    });
    expect(triggers.scheduler.nextFires('acme/nightly')).toEqual(acme);
    expect(triggers.scheduler.nextFires('other/nightly')).toEqual([]);
  });

  it('refuses a webhook path another owner serves without naming its workflow', async () => {
    await put('orders', 'Bearer acme');
    const response = await put('billing', 'Bearer other', {
      ...hooked('billing'),
      triggers: [hooked('orders').triggers[1]],
    });
    expect(response.statusCode).toBe(409);
    expect(response.json().details).toEqual({ reason: 'route_taken', route: 'POST /orders' });
    expect(response.body).not.toContain('acme');
  });

  it('answers an undeploy by another owner with the 404 of an unknown name; an admin key names the owner', async () => {
    await put('orders', 'Bearer acme');
    const del = (name: string) =>
      app.inject({
        method: 'DELETE',
        url: `/workflows/${name}`,
        headers: { authorization: 'Bearer other' },
      });
    const refused = await del('orders');
    expect(refused.statusCode).toBe(404);
    expect(refused.body.replaceAll('orders', 'nothing')).toBe((await del('nothing')).body);
    expect(triggers.webhooks.routesOf('acme/orders')).toEqual(['POST /hooks/orders']);
    const admin = (url: string) =>
      app.inject({ method: 'DELETE', url, headers: { authorization: 'Bearer root' } });
    // An admin key acts in its own owner unless it names another.
    expect((await admin('/workflows/orders')).statusCode).toBe(404);
    expect((await admin('/workflows/orders?owner=acme')).statusCode).toBe(200);
    expect(await triggers.service.get('acme', 'orders')).toBeUndefined();
    expect(triggers.webhooks.routesOf('acme/orders')).toEqual([]);
  });
});

describe('definitions the deploy refuses', () => {
  it('refuses a definition without a steps list with a VALIDATION error naming steps', async () => {
    for (const body of [{ name: 'orders' }, { name: 'orders', steps: 'none' }]) {
      const response = await put('orders', 'Bearer acme', body);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ code: 'VALIDATION', details: { field: 'steps' } });
    }
    expect(await triggers.service.list()).toEqual([]);
  });

  it('refuses the name "executions" (the executions API) with a VALIDATION error', async () => {
    const response = await put('executions', 'Bearer acme');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'name', constraint: 'reserved' },
    });
    expect(response.json().message).toContain('reserved');
    expect(await triggers.service.list()).toEqual([]);
    await expect(
      triggers.service.deploy(hooked('executions'), 'file:/srv/x.yaml', null),
    ).rejects.toMatchObject({ code: 'VALIDATION' });
  });
});
