import { afterEach, describe, expect, it } from 'vitest';
import { MemoryRoutesStore } from '@weft/store/memory';
import { Router } from './router.js';
import { record, startInstance, TestClock, type TestInstance } from './test-support/instances.js';

const instances: TestInstance[] = [];
const routers: Router[] = [];

afterEach(async () => {
  for (const r of routers.splice(0)) await r.close();
  for (const i of instances.splice(0)) await i.close();
});

/** Waits (up to 5 s) for `check` to hold. */
async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200 && !(await check()); i++) await new Promise((x) => setTimeout(x, 25));
  expect(await check()).toBe(true);
}

/** An instance whose health answer the test sets. */
async function healthInstance(answer: { status?: number; body: string; delayMs?: number }) {
  const instance = await startInstance((_req, res) => {
    setTimeout(() => {
      res.statusCode = answer.status ?? 200;
      res.end(answer.body);
    }, answer.delayMs ?? 0);
  });
  instances.push(instance);
  return instance;
}

function router(store = new MemoryRoutesStore(), clock = new TestClock()) {
  const r = new Router({
    store,
    clock,
    healthChecks: false,
    openExecute: true,
    healthIntervalMs: 1000,
    healthTimeoutMs: 200,
    healthFailures: 3,
  });
  routers.push(r);
  return { r, store, clock };
}

const body = (status: string) =>
  JSON.stringify({ status, version: '1.0.0', checks: { db: 'healthy' } });

describe('health checker', () => {
  it('records ok and degraded answers, and checks again only after the interval', async () => {
    const answer = { body: body('degraded') };
    const instance = await healthInstance(answer);
    const { r, store, clock } = router();
    await r.start();
    await r.register(record(instance.url, { metadata: { instance_id: 'a' } }));
    await r.health.tick();
    expect((await store.list())[0]).toMatchObject({
      health: 'degraded',
      last_check_at: expect.any(String),
    });
    answer.body = body('ok');
    clock.ms += 500;
    await r.health.tick();
    expect((await store.list())[0]!.health).toBe('degraded');
    clock.ms += 500;
    await r.health.tick();
    expect((await store.list())[0]!.health).toBe('ok');
  });

  const failures: [string, { status?: number; body: string; delayMs?: number }, RegExp][] = [
    ['a non-2xx answer', { status: 503, body: body('ok') }, /HTTP 503/],
    ['a non-JSON answer', { body: 'fine' }, /not JSON/],
    ['an unknown status', { body: body('great') }, /without a status/],
    ['an unhealthy status', { body: body('unhealthy') }, /unhealthy/],
    ['no answer within the timeout', { body: body('ok'), delayMs: 1000 }, /within 200 ms/],
  ];
  for (const [what, answer, reason] of failures) {
    it(`counts ${what} as a failure and removes the instance after N of them`, async () => {
      const instance = await healthInstance(answer);
      const { r, store, clock } = router();
      await r.start();
      await r.register(record(instance.url, { metadata: { instance_id: 'a' } }));
      for (let i = 1; i <= 2; i++) {
        await r.health.tick();
        expect((await store.list())[0]).toMatchObject({
          health: 'unhealthy',
          consecutive_failures: i,
        });
        expect((await store.list())[0]!.last_error).toMatch(reason);
        clock.ms += 1000;
      }
      await r.health.tick();
      expect(await store.list()).toEqual([]);
    });
  }

  it('counts a refused connection as a failure and takes the instance out of traffic at once', async () => {
    const instance = await healthInstance({ body: body('ok') });
    const { r, store } = router();
    await r.start();
    await r.register(record(instance.url, { metadata: { instance_id: 'a' } }));
    await instance.close();
    await r.health.tick();
    expect((await store.list())[0]).toMatchObject({
      health: 'unhealthy',
      last_error: expect.stringMatching(/ECONNREFUSED/),
    });
    expect(r.table.pick('echo', 'say')).toBeUndefined();
  });

  it('lets only one replica check an instance at a time', async () => {
    let checks = 0;
    const instance = await startInstance((_req, res) => {
      checks++;
      setTimeout(() => res.end(body('ok')), 50);
    });
    instances.push(instance);
    const store = new MemoryRoutesStore();
    const clock = new TestClock();
    const one = router(store, clock).r;
    const two = router(store, clock).r;
    await one.start();
    await two.start();
    await one.register(record(instance.url, { metadata: { instance_id: 'a' } }));
    await Promise.all([one.health.tick(), two.health.tick(), one.health.tick(), two.health.tick()]);
    expect(checks).toBe(1);
  });

  it('sleeps while nothing is due and is woken by a registration, long before an interval', async () => {
    let checks = 0;
    const instance = await startInstance((_req, res) => {
      checks++;
      res.end(body('ok'));
    });
    instances.push(instance);
    const store = new MemoryRoutesStore();
    // The real clock and timers; an hour between checks, so only the wake-up can run one soon.
    const r = new Router({ store, openExecute: true, healthIntervalMs: 3_600_000 });
    routers.push(r);
    await r.start();
    await r.register(record(instance.url, { metadata: { instance_id: 'a' } }));
    await until(async () => (await store.list())[0]?.health === 'ok');
    expect(checks).toBe(1);
  });
});
