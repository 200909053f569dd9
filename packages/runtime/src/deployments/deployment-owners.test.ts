import { createHmac } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  EnvironmentSecretsProvider,
  MemoryDeploymentStore,
  MemoryTriggerStore,
  UnauthorizedError,
  keyPrincipal,
  type Principal,
} from '@weft/core';
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
    expect((await run('orders', 'Bearer root')).statusCode).toBe(202);
    expect(starter.requests.map((r) => [r.owner, r.keyId])).toEqual([
      ['acme', 'k-acme'],
      ['ops', 'k-root'],
    ]);
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
const names = async (key: string) =>
  (await get('/workflows', key)).json().workflows.map((w: { name: string }) => w.name);

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

  it('lets an admin key see and read every deployment', async () => {
    expect(await names('Bearer root')).toEqual(['invoices', 'nightly', 'orders']);
    for (const name of ['orders', 'invoices', 'nightly']) {
      expect((await get(`/workflows/${name}`, 'Bearer root')).statusCode).toBe(200);
    }
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
    expect(starter.requests).toEqual([]);
    expect((await run('invoices', 'Bearer root')).statusCode).toBe(202);
  });
});

describe('changing another owner’s deployment', () => {
  it('refuses a redeploy by another owner with 409 naming nothing of the deployment, changing nothing', async () => {
    await put('orders', 'Bearer acme');
    const response = await put('orders', 'Bearer other', { ...hooked('orders'), version: '2.0.0' });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toEqual({
      status: 'error',
      code: 'CONFLICT',
      message: 'the workflow name "orders" is taken on this server: deploy it under another name',
      details: { reason: 'name_taken', name: 'orders' },
    });
    expect((await triggers.service.get('orders'))?.version).toBe('1.0.0');
  });

  it('answers an undeploy by another owner with the 404 of an unknown name and lets an admin key do both', async () => {
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
    expect(triggers.webhooks.routesOf('orders')).toEqual(['POST /hooks/orders']);
    expect((await put('orders', 'Bearer root')).statusCode).toBe(200);
    const removed = await app.inject({
      method: 'DELETE',
      url: '/workflows/orders',
      headers: { authorization: 'Bearer root' },
    });
    expect(removed.statusCode).toBe(200);
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
