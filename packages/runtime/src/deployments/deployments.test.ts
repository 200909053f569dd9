import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHmac } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { AJV_OPTIONS } from '@weft/http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EnvironmentSecretsProvider, UnauthorizedError, keyPrincipal } from '@weft/core';
import { MemoryDeploymentStore, MemoryTriggerStore } from '@weft/store/memory';
import { pendingRecordOf, RecordingStarter } from '../triggers/test-support.js';
import { createTriggers, type Triggers } from './create-triggers.js';
import { watchWorkflowDirectory } from './directory-watcher.js';

const KEY = 'Bearer weft_test_key';
const HOOK_SECRET = 's3cret-of-at-least-16-bytes';
const definition = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  version: '1.0.0',
  triggers: [
    { type: 'manual' },
    {
      type: 'webhook',
      path: '/orders',
      auth: { type: 'hmac-sha256', secret_name: 'HOOK_SECRET', header: 'X-Signature' },
    },
    { type: 'schedule', cron: '0 9 * * *', timezone: 'Europe/Berlin' },
  ],
  steps: [
    { name: 'notify', plugin: 'slack', action: 'post', input: { text: 'hi' } },
    { name: 'ship', connector: 'connector:acme/shipping@2.1.0', action: 'create' },
  ],
  ...extra,
});

let app: FastifyInstance;
let triggers: Triggers;
let starter: RecordingStarter;
let store: MemoryDeploymentStore;

beforeEach(async () => {
  starter = new RecordingStarter();
  store = new MemoryDeploymentStore();
  triggers = createTriggers({
    start: starter.start,
    authenticate: async (header) => {
      if (header !== KEY) throw new UnauthorizedError('bad key', { reason: 'invalid' });
      return keyPrincipal({ keyId: 'k1', owner: 'acme' });
    },
    triggerStore: new MemoryTriggerStore(),
    deploymentStore: store,
    secrets: new EnvironmentSecretsProvider({ HOOK_SECRET }),
    resolvePluginVersion: async (slug) => (slug === 'slack' ? '1.4.0' : undefined),
  });
  // The server's ajv settings: unknown body fields are refused, not dropped.
  app = Fastify({
    ajv: { customOptions: AJV_OPTIONS },
  });
  await app.register(triggers.plugin);
  await triggers.start();
});
afterEach(async () => {
  await triggers.close();
  await app.close();
});

const put = (name: string, body: unknown, type = 'application/json') =>
  app.inject({
    method: 'PUT',
    url: `/workflows/${encodeURIComponent(name)}`,
    headers: { authorization: KEY, 'content-type': type },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('PUT /workflows/{name}', () => {
  it('deploys a JSON definition (201), serves its webhook and records plugin versions', async () => {
    const response = await put('orders', definition('orders'));
    expect(response.statusCode).toBe(201);
    expect(response.json()).toEqual({
      status: 'deployed',
      name: 'orders',
      version: '1.0.0',
      revision: 1,
      previous_version: null,
      webhooks: ['POST /hooks/orders'],
      warnings: [],
    });
    expect(await triggers.service.usage.activeWorkflows('slack', '1.4.0')).toEqual(['orders']);
    expect(await triggers.service.usage.activeWorkflows('shipping', '2.1.0')).toEqual(['orders']);
    expect(triggers.scheduler.nextFires('acme/orders')).toHaveLength(1);
    const body = '{"id":7}';
    const hook = await app.inject({
      method: 'POST',
      url: '/hooks/orders',
      payload: body,
      headers: {
        'content-type': 'application/json',
        'x-signature': createHmac('sha256', HOOK_SECRET).update(body).digest('hex'),
      },
    });
    expect(hook.statusCode).toBe(202);
    expect(starter.requests[0]!.trigger).toEqual({ type: 'webhook', payload: { id: 7 } });
  });

  it('redeploys from YAML (200), keeping the history', async () => {
    await put('orders', definition('orders'));
    const yaml = `name: orders\nversion: 1.1.0\nsteps:\n  - name: notify\n    plugin: slack\n    action: post\n`;
    const response = await put('orders', yaml, 'application/yaml');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      revision: 2,
      version: '1.1.0',
      previous_version: '1.0.0',
      webhooks: [],
    });
    const detail = (
      await app.inject({ method: 'GET', url: '/workflows/orders', headers: { authorization: KEY } })
    ).json();
    expect(detail.revisions.map((r: { revision: number }) => r.revision)).toEqual([2, 1]);
    expect(detail.definition).toMatchObject({ name: 'orders', version: '1.1.0' });
    // The text as sent, for the console to show as deployed.
    expect(detail.source_text).toBe(yaml);
    expect((await app.inject({ method: 'POST', url: '/hooks/orders' })).statusCode).toBe(404);
  });

  it('refuses an invalid definition with every diagnostic, changing nothing', async () => {
    const response = await put('orders', {
      name: 'orders',
      steps: [{ name: 'a', plugin: 'slack', action: 'post', retyr: {} }],
    });
    expect(response.statusCode).toBe(400);
    const error = response.json();
    expect(error).toMatchObject({
      status: 'error',
      code: 'VALIDATION',
      details: { field: 'steps[0].retyr' },
    });
    expect(error.details.diagnostics[0].message).toMatch(/retry/);
    expect(await store.list()).toEqual([]);
  });

  it('refuses a name other than the path, bad YAML, a missing key and a missing secret', async () => {
    expect((await put('other', definition('orders'))).json()).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'name', constraint: 'matches_path' },
    });
    expect((await put('orders', 'name: [unclosed', 'application/yaml')).statusCode).toBe(400);
    const noKey = await app.inject({
      method: 'PUT',
      url: '/workflows/orders',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(definition('orders')),
    });
    expect(noKey.statusCode).toBe(401);
    const secretless = definition('orders', {
      triggers: [{ type: 'webhook', path: '/x', auth: { type: 'bearer', secret_name: 'NOPE' } }],
    });
    expect((await put('orders', secretless)).json()).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'triggers[0].auth.secret_name', constraint: 'secret_exists' },
      message: expect.stringContaining("the server's secrets provider"),
    });
    expect(await store.list()).toEqual([]);
  });

  it('refuses a webhook path another workflow serves with 409, changing nothing', async () => {
    await put('orders', definition('orders'));
    const response = await put('orders-copy', definition('orders-copy'));
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({
      code: 'CONFLICT',
      details: { reason: 'route_taken', workflow: 'orders' },
    });
    expect((await store.list()).map((r) => r.name)).toEqual(['orders']);
    expect(triggers.webhooks.routesOf('acme/orders')).toEqual(['POST /hooks/orders']);
  });

  it('dispatches an event posted to a hook path to event triggers with source webhook', async () => {
    await put(
      'ev',
      definition('ev', {
        triggers: [{ type: 'event', source: 'webhook', topic: '/events-in', filter: { ok: true } }],
      }),
    );
    const post = (payload: unknown, authorization?: string) =>
      app.inject({
        method: 'POST',
        url: '/hooks/events-in',
        payload: payload as object,
        headers: authorization ? { authorization } : {},
      });
    expect((await post({ ok: true })).statusCode).toBe(401);
    const accepted = await post({ ok: true }, KEY);
    expect(accepted.statusCode).toBe(202);
    expect(accepted.json()).toMatchObject({
      status: 'accepted',
      topic: '/events-in',
      started: [{ workflow: 'ev' }],
    });
    expect((await post({ ok: false }, KEY)).json().started).toEqual([]);
    expect(starter.requests.map((r) => r.trigger)).toEqual([
      { type: 'event', event: { ok: true } },
    ]);
  });

  it('refuses an event trigger on an unconfigured source', async () => {
    const response = await put(
      'k',
      definition('k', { triggers: [{ type: 'event', source: 'kafka', topic: 'orders' }] }),
    );
    expect(response.json()).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'triggers[0].source' },
    });
  });
});

describe('reading, undeploying and running deployed workflows', () => {
  it('lists, shows, runs by hand and undeploys', async () => {
    await put('orders', definition('orders'));
    const list = (
      await app.inject({ method: 'GET', url: '/workflows', headers: { authorization: KEY } })
    ).json();
    expect(list).toMatchObject({
      total: 1,
      workflows: [
        {
          name: 'orders',
          revision: 1,
          triggers: ['manual', 'webhook', 'schedule'],
          deployed_by: 'acme',
          source: 'api',
        },
      ],
    });
    // The next fires of the schedule, as the scheduler computes them: 09:00 in Berlin.
    const [fires] = (list as { workflows: { next_fires: { at: string[] }[] }[] }).workflows[0]!
      .next_fires;
    expect(fires).toMatchObject({ trigger: 2, cron: '0 9 * * *', timezone: 'Europe/Berlin' });
    expect(fires!.at).toHaveLength(3);
    for (const at of fires!.at) {
      const time = new Date(at);
      expect(at).toBe(time.toISOString());
      expect(time.getTime()).toBeGreaterThan(Date.now());
      const berlin = new Intl.DateTimeFormat('en-GB', {
        timeZone: 'Europe/Berlin',
        hour: '2-digit',
        minute: '2-digit',
      }).format(time);
      expect(berlin).toBe('09:00');
    }
    const run = await app.inject({
      method: 'POST',
      url: '/workflows/orders/executions',
      headers: { authorization: KEY, 'content-type': 'application/json' },
      payload: { inputs: { n: 1 } },
    });
    expect(run.statusCode).toBe(202);
    expect(run.json()).toEqual(pendingRecordOf('exec-1', 'orders', 'manual'));
    expect(run.headers['location']).toBe('/workflows/executions/exec-1');
    expect(starter.requests[0]).toMatchObject({
      inputs: { n: 1 },
      trigger: { type: 'manual' },
      owner: 'acme',
      keyId: 'k1',
    });
    const bad = await app.inject({
      method: 'POST',
      url: '/workflows/orders/executions',
      headers: { authorization: KEY, 'content-type': 'application/json' },
      payload: { inputz: {} },
    });
    expect(bad.statusCode).toBe(400);
    expect(
      (
        await app.inject({
          method: 'DELETE',
          url: '/workflows/orders',
          headers: { authorization: KEY },
        })
      ).json(),
    ).toEqual({ status: 'undeployed', name: 'orders' });
    expect(
      (
        await app.inject({
          method: 'DELETE',
          url: '/workflows/orders',
          headers: { authorization: KEY },
        })
      ).statusCode,
    ).toBe(404);
    expect(
      (
        await app.inject({
          method: 'GET',
          url: '/workflows/orders',
          headers: { authorization: KEY },
        })
      ).statusCode,
    ).toBe(404);
    expect(
      (
        await app.inject({
          method: 'POST',
          url: '/workflows/orders/executions',
          headers: { authorization: KEY },
        })
      ).statusCode,
    ).toBe(404);
    expect(await triggers.service.usage.activeWorkflows('slack', '1.4.0')).toEqual([]);
    expect(triggers.scheduler.nextFires('acme/orders')).toEqual([]);
  });

  it('serves stored deployments again after a restart', async () => {
    await put('orders', definition('orders'));
    const again = createTriggers({
      start: starter.start,
      authenticate: async () => keyPrincipal({ keyId: 'k', owner: 'o' }),
      triggerStore: new MemoryTriggerStore(),
      deploymentStore: store,
      secrets: new EnvironmentSecretsProvider({ HOOK_SECRET }),
    });
    await again.start();
    expect(again.webhooks.routesOf('acme/orders')).toEqual(['POST /hooks/orders']);
    await again.close();
  });
});

describe('workflow directory', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'weft-workflows-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('deploys every file, redeploys changed ones and undeploys removed ones', async () => {
    const file = join(dir, 'orders.yaml');
    writeFileSync(
      file,
      JSON.stringify({
        workflows: [definition('orders'), definition('nightly', { triggers: [] })],
      }),
    );
    writeFileSync(join(dir, 'broken.yaml'), 'workflows: [{name: x}]');
    const watched = await watchWorkflowDirectory(dir, triggers.service, { once: true });
    expect((await store.list()).map((r) => [r.name, r.source])).toEqual([
      ['nightly', `file:${file}`],
      ['orders', `file:${file}`],
    ]);
    writeFileSync(
      file,
      JSON.stringify({ workflows: [definition('orders', { version: '2.0.0' })] }),
    );
    await watched.sync('orders.yaml');
    expect((await store.list()).map((r) => `${r.name}@${r.version}#${r.revision}`)).toEqual([
      'orders@2.0.0#2',
    ]);
    unlinkSync(file);
    await watched.sync('orders.yaml');
    expect(await store.list()).toEqual([]);
  });

  it('picks up a change on its own when watching', async () => {
    const watched = await watchWorkflowDirectory(dir, triggers.service, { debounceMs: 20 });
    writeFileSync(
      join(dir, 'a.json'),
      JSON.stringify({ workflows: [definition('a', { triggers: [] })] }),
    );
    const deadline = Date.now() + 3000;
    while ((await store.list()).length === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    watched.close();
    expect((await store.list()).map((r) => r.name)).toEqual(['a']);
  });
});
