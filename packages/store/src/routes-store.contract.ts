import { afterEach, beforeEach, expect, it } from 'vitest';
import type { CheckOutcome, NewRegistration, RoutesStore } from '@weft/core';
import type { TestRoutesStore } from './routes-test-store.js';

const T0 = 1_800_000_000_000;
const AT = new Date(T0).toISOString();

function registration(id: string, extra: Partial<NewRegistration> = {}): NewRegistration {
  return {
    plugin_slug: 'slack',
    instance_id: id,
    version: '1.0.0',
    url: `http://127.0.0.1:4000/${id}`,
    actions: ['send'],
    health_check_url: `http://127.0.0.1:4000/${id}/healthz`,
    region: 'eu-west-1',
    metadata: { instance_id: id, region: 'eu-west-1' },
    at: AT,
    check_at: T0,
    ...extra,
  };
}

function outcome(id: string, owner: string, extra: Partial<CheckOutcome> = {}): CheckOutcome {
  return {
    plugin_slug: 'slack',
    instance_id: id,
    owner,
    at: AT,
    health: 'ok',
    error: null,
    next_check_at: T0 + 10_000,
    max_failures: 3,
    ...extra,
  };
}

/** The contract every {@link RoutesStore} implementation passes. */
export function routesStoreContract(open: () => Promise<TestRoutesStore>): void {
  let test: TestRoutesStore;
  let store: RoutesStore;
  beforeEach(async () => {
    test = await open();
    store = test.routes;
  });
  afterEach(async () => test.dispose());

  it('adds an instance with unknown health and lists the table in slug, instance order', async () => {
    expect((await store.register(registration('b'))).created).toBe(true);
    await store.register(registration('a'));
    await store.register(registration('z', { plugin_slug: 'github' }));
    const list = await store.list();
    expect(list.map((i) => `${i.plugin_slug}/${i.instance_id}`)).toEqual([
      'github/z',
      'slack/a',
      'slack/b',
    ]);
    expect(list[1]).toMatchObject({
      actions: ['send'],
      health: 'unknown',
      last_check_at: null,
      consecutive_failures: 0,
      registered_at: AT,
      metadata: { instance_id: 'a', region: 'eu-west-1' },
      next_check_at: T0,
    });
  });

  it('re-registration updates the record but keeps its first registration and health history', async () => {
    await store.register(registration('a', { check_at: T0 + 5000 }));
    const [claimed] = await store.claimDue('r1', T0 + 5000, 1000, 10);
    expect(claimed?.instance_id).toBe('a');
    await store.recordCheck(outcome('a', 'r1', { health: 'unhealthy', error: 'refused' }));
    const later = new Date(T0 + 60_000).toISOString();
    const again = await store.register(
      registration('a', {
        at: later,
        url: 'http://127.0.0.1:5000',
        actions: ['send', 'read'],
        check_at: T0 + 20_000,
      }),
    );
    expect(again.created).toBe(false);
    expect(again.instance).toMatchObject({
      url: 'http://127.0.0.1:5000',
      actions: ['send', 'read'],
      registered_at: AT,
      updated_at: later,
      health: 'unhealthy',
      last_error: 'refused',
      consecutive_failures: 1,
      next_check_at: T0 + 10_000,
    });
  });

  it('deregisters an instance once', async () => {
    await store.register(registration('a'));
    expect(await store.deregister('slack', 'a')).toBe(true);
    expect(await store.deregister('slack', 'a')).toBe(false);
    expect(await store.list()).toEqual([]);
  });

  it('claims only due instances, and a leased instance only once until its lease expires', async () => {
    await store.register(registration('due'));
    await store.register(registration('later', { check_at: T0 + 60_000 }));
    const replica = await test.replica();
    expect((await store.claimDue('r1', T0, 2000, 10)).map((i) => i.instance_id)).toEqual(['due']);
    expect(await replica.claimDue('r2', T0 + 1000, 2000, 10)).toEqual([]);
    const reclaimed = await replica.claimDue('r2', T0 + 2000, 2000, 10);
    expect(reclaimed.map((i) => i.instance_id)).toEqual(['due']);
    expect(await store.recordCheck(outcome('due', 'r1'))).toBe('stale');
    expect(await replica.recordCheck(outcome('due', 'r2'))).toBe('kept');
  });

  it('two replicas claiming at the same time never get the same instance', async () => {
    for (let i = 0; i < 20; i++)
      await store.register(registration(`i${String(i).padStart(2, '0')}`));
    const replica = await test.replica();
    const [a, b] = await Promise.all([
      store.claimDue('r1', T0, 5000, 50),
      replica.claimDue('r2', T0, 5000, 50),
    ]);
    const ids = [...a, ...b].map((i) => i.instance_id).sort();
    expect(ids).toHaveLength(20);
    expect(new Set(ids).size).toBe(20);
  });

  it('counts consecutive failures, resets them on success and removes the instance at the limit', async () => {
    await store.register(registration('a'));
    const check = async (extra: Partial<CheckOutcome>) => {
      const now = (await store.list())[0]?.next_check_at ?? T0;
      await store.claimDue('r1', now, 1000, 10);
      return store.recordCheck(outcome('a', 'r1', { next_check_at: now + 10, ...extra }));
    };
    expect(await check({ health: 'unhealthy', error: 'timeout' })).toBe('kept');
    expect(await check({ health: 'unhealthy', error: 'timeout' })).toBe('kept');
    expect((await store.list())[0]).toMatchObject({ consecutive_failures: 2, health: 'unhealthy' });
    expect(await check({ health: 'degraded' })).toBe('kept');
    expect((await store.list())[0]).toMatchObject({
      consecutive_failures: 0,
      health: 'degraded',
      last_error: null,
      last_check_at: AT,
    });
    for (let i = 0; i < 2; i++)
      expect(await check({ health: 'unhealthy', error: 'x' })).toBe('kept');
    expect(await check({ health: 'unhealthy', error: 'x' })).toBe('removed');
    expect(await store.list()).toEqual([]);
  });

  it('a check of an instance that left the table meanwhile is stale', async () => {
    await store.register(registration('a'));
    await store.claimDue('r1', T0, 1000, 10);
    await store.deregister('slack', 'a');
    expect(await store.recordCheck(outcome('a', 'r1'))).toBe('stale');
    expect(await store.list()).toEqual([]);
  });
}
