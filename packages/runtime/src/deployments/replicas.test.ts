import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  EnvironmentSecretsProvider,
  type DeploymentStore,
  type TriggerStore,
  keyPrincipal,
} from '@weft/core';
import { openTestTriggerStores, type TestTriggerStores } from '@weft/store';
import { ManualClock, RecordingStarter } from '../triggers/test-support.js';
import { createTriggers, type Triggers } from './create-triggers.js';

const url = process.env['WEFT_TEST_DATABASE_URL'];
const NINE_BERLIN = Date.parse('2026-03-02T08:00:00Z');

const orders = {
  name: 'orders',
  triggers: [
    {
      type: 'webhook',
      path: '/orders',
      auth: { type: 'hmac-sha256', secret_name: 'HOOK_SECRET', header: 'X-Signature' },
    },
    { type: 'schedule', cron: '0 9 * * *', timezone: 'Europe/Berlin' },
  ],
  steps: [{ name: 'noop', type: 'transform', input: { ok: true } }],
};

/** One server process: its own triggers and HTTP app over a store shared with the others. */
interface Replica {
  triggers: Triggers;
  app: FastifyInstance;
  starter: RecordingStarter;
  /** Runs one reconciliation, as the replica's timer would. */
  tick: () => Promise<void>;
}

async function replica(
  stores: { deployments: DeploymentStore; triggers: TriggerStore },
  clock: ManualClock,
  secret = 's3cret',
): Promise<Replica> {
  const starter = new RecordingStarter();
  let task: (() => Promise<void>) | undefined;
  const triggers = createTriggers({
    start: starter.start,
    authenticate: async () => keyPrincipal({ keyId: 'k', owner: 'acme' }),
    triggerStore: stores.triggers,
    deploymentStore: stores.deployments,
    secrets: new EnvironmentSecretsProvider({ HOOK_SECRET: secret }),
    clock,
    repeat: (_ms, run) => {
      task = run;
      return () => (task = undefined);
    },
  });
  const app = Fastify();
  await app.register(triggers.plugin);
  await triggers.start();
  return { triggers, app, starter, tick: () => task!() };
}

const signed = (r: Replica) =>
  r.app.inject({
    method: 'POST',
    url: '/hooks/orders',
    payload: '{"id":1}',
    headers: {
      'content-type': 'application/json',
      'x-signature': createHmac('sha256', 's3cret').update('{"id":1}').digest('hex'),
    },
  });

describe.each([
  { name: 'SQLite, two connections to one file', kind: 'sqlite' as const, skip: false },
  { name: 'PostgreSQL (set WEFT_TEST_DATABASE_URL to run)', kind: 'postgres' as const, skip: !url },
])('deployments across replicas ($name)', ({ kind, skip }) => {
  const dir = mkdtempSync(join(tmpdir(), 'weft-replicas-'));
  const clock = new ManualClock(NINE_BERLIN - 3_600_000);
  let opened: TestTriggerStores[] = [];
  let a: Replica;
  let b: Replica;

  beforeEach(async () => {
    if (skip) return;
    clock.ms = NINE_BERLIN - 3_600_000;
    const first = await openTestTriggerStores(kind, kind === 'sqlite' ? dir : url);
    // SQLite: a second connection to the same file; PostgreSQL: the same schema.
    const second = kind === 'sqlite' ? await openTestTriggerStores('sqlite', dir) : first;
    opened = [first, second];
    a = await replica(first, clock);
    b = await replica(second, clock);
  });
  afterEach(async () => {
    if (skip) return;
    for (const r of [a, b]) {
      await r.triggers.close();
      await r.app.close();
    }
    for (const o of new Set(opened)) await o.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it.skipIf(skip)(
    'serves at once a webhook deployed on another replica (a miss reads the store)',
    async () => {
      await a.triggers.service.deploy(orders, 'api', 'acme');
      // B has not reconciled: the miss brings its table in line before answering.
      expect(b.triggers.service.workflowOf('orders', 'acme')).toBeUndefined();
      expect((await signed(b)).statusCode).toBe(202);
      expect(b.starter.requests.map((r) => r.trigger.type)).toEqual(['webhook']);
      expect(b.triggers.scheduler.nextFires('acme/orders')).toEqual([NINE_BERLIN]);
    },
  );

  it.skipIf(skip)(
    'refuses on one replica a signature another accepted within the window, then forgets it',
    async () => {
      const paid = {
        name: 'paid',
        triggers: [{ ...orders.triggers[0], path: '/paid', security: { replayWindow: 300 } }],
        steps: orders.steps,
      };
      await a.triggers.service.deploy(paid, 'api', 'acme');
      const body = '{"id":1}';
      const send = (r: Replica) =>
        r.app.inject({
          method: 'POST',
          url: '/hooks/paid',
          payload: body,
          headers: {
            'content-type': 'application/json',
            'x-signature': createHmac('sha256', 's3cret').update(body).digest('hex'),
          },
        });
      expect((await send(a)).statusCode).toBe(202);
      const replay = await send(b);
      expect(replay.statusCode).toBe(409);
      expect(replay.json().details).toMatchObject({
        reason: 'replayed_delivery',
        execution_id: 'exec-1',
      });
      // The window passes and the store is pruned: the signature is neither kept nor refused.
      clock.ms += 300_000;
      await opened[0]!.triggers.prune(clock.ms, clock.ms - 86_400_000);
      expect((await send(b)).statusCode).toBe(202);
    },
  );

  it.skipIf(skip)(
    'answers 503 on a replica whose secret is blank, never verifying with it, until undeployed',
    async () => {
      const c = await replica(opened[1]!, clock, ' \t ');
      try {
        await a.triggers.service.deploy(orders, 'api', 'acme');
        const refused = await signed(c);
        expect(refused.statusCode).toBe(503);
        expect(refused.json()).toMatchObject({
          status: 'error',
          code: 'UNAVAILABLE',
          details: { reason: 'secret_unavailable', backend: 'secrets' },
        });
        expect(refused.json().message).not.toContain('HOOK_SECRET');
        expect(c.starter.requests).toEqual([]);
        expect((await signed(a)).statusCode).toBe(202);
        await a.triggers.service.undeploy('orders', undefined, 'acme');
        await c.tick();
        expect((await signed(c)).statusCode).toBe(404);
      } finally {
        await c.triggers.close();
        await c.app.close();
      }
    },
  );

  it.skipIf(skip)(
    'keeps two owners’ deployments of one name apart on every replica, fires included',
    async () => {
      const theirs = { ...orders, triggers: [orders.triggers[1]] };
      await a.triggers.service.deploy(orders, 'api', 'acme');
      await a.triggers.service.deploy({ ...theirs, version: '2.0.0' }, 'api', 'globex');
      await b.tick();
      expect(b.triggers.service.workflowOf('orders', 'acme')?.version).toBe('1.0.0');
      expect(b.triggers.service.workflowOf('orders', 'globex')?.version).toBe('2.0.0');
      await a.triggers.service.undeploy('orders', undefined, 'globex');
      await b.tick();
      expect(b.triggers.service.workflowOf('orders', 'globex')).toBeUndefined();
      expect(b.triggers.service.workflowOf('orders', 'acme')).toBeDefined();
      await a.tick();
      // The acme schedule fires once, on one replica, for acme.
      clock.ms = NINE_BERLIN + 10;
      const fired = [
        ...(await a.triggers.scheduler.tick()),
        ...(await b.triggers.scheduler.tick()),
      ];
      expect(fired).toEqual([{ workflow: 'orders', fireAt: NINE_BERLIN }]);
      expect([...a.starter.requests, ...b.starter.requests].map((r) => r.deployment)).toEqual([
        'acme/orders',
      ]);
    },
  );

  it.skipIf(skip)(
    'stops serving and never fires a workflow undeployed on another replica',
    async () => {
      await a.triggers.service.deploy(orders, 'api', 'acme');
      await b.tick();
      await a.triggers.service.undeploy('orders', undefined, 'acme');
      // Before B reconciles, its schedule comes due: the claim-time check keeps it from firing
      // and from writing back the schedule state A cleared.
      clock.ms = NINE_BERLIN + 10;
      expect(await b.triggers.scheduler.tick()).toEqual([]);
      expect(b.starter.requests).toEqual([]);
      const trigger = '1:0 9 * * *@Europe/Berlin';
      expect(await opened[1]!.triggers.getNextFire('acme/orders', trigger)).toBeUndefined();
      await b.tick();
      expect((await signed(b)).statusCode).toBe(404);
      expect(b.triggers.service.workflowOf('orders', 'acme')).toBeUndefined();
    },
  );

  it.skipIf(skip)(
    'leaves a fire to the replica serving the current revision after a redeploy',
    async () => {
      await a.triggers.service.deploy(orders, 'api', 'acme');
      await b.tick();
      await a.triggers.service.deploy({ ...orders, version: '1.1.0' }, 'api', 'acme');
      clock.ms = NINE_BERLIN + 10;
      expect(await b.triggers.scheduler.tick()).toEqual([]);
      expect(await a.triggers.scheduler.tick()).toEqual([
        { workflow: 'orders', fireAt: NINE_BERLIN },
      ]);
      await b.tick();
      expect(b.triggers.service.workflowOf('orders', 'acme')?.version).toBe('1.1.0');
    },
  );
});

describe('the reconciliation timer', () => {
  it('picks up a deployment made elsewhere within its interval', async () => {
    const stores = await openTestTriggerStores('sqlite');
    const make = (interval: number) =>
      createTriggers({
        start: new RecordingStarter().start,
        authenticate: async () => keyPrincipal({ keyId: 'k', owner: 'acme' }),
        triggerStore: stores.triggers,
        deploymentStore: stores.deployments,
        secrets: new EnvironmentSecretsProvider({ HOOK_SECRET: 's3cret' }),
        reconcileIntervalMs: interval,
      });
    const a = make(0);
    const b = make(20);
    await a.start();
    await b.start();
    try {
      await a.service.deploy(orders, 'api', 'acme');
      const deadline = Date.now() + 2000;
      while (b.webhooks.routesOf('acme/orders').length === 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect(b.webhooks.routesOf('acme/orders')).toEqual(['POST /hooks/orders']);
    } finally {
      await a.close();
      await b.close();
      await stores.dispose();
    }
  });
});
