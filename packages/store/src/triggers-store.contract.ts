import { afterEach, beforeEach, expect, it } from 'vitest';
import type { BucketSpec, TriggerStore } from '@weft/core';

/** The behaviour every {@link TriggerStore} shares; run by the memory, SQLite and PostgreSQL suites. */
export function triggerStoreContract(
  open: () => Promise<{ store: TriggerStore; dispose(): Promise<void> }>,
): void {
  let store: TriggerStore;
  let dispose: () => Promise<void>;
  beforeEach(async () => {
    ({ store, dispose } = await open());
  });
  afterEach(async () => dispose());

  it('accepts a delivery once within its window and again after it expires', async () => {
    expect(await store.rememberDelivery('hook', 'd1', 1000, 6000)).toBe(true);
    expect(await store.rememberDelivery('hook', 'd1', 2000, 7000)).toBe(false);
    expect(await store.rememberDelivery('other', 'd1', 2000, 7000)).toBe(true);
    expect(await store.rememberDelivery('hook', 'd1', 6000, 11000)).toBe(true);
    expect(await store.rememberDelivery('hook', 'd1', 7000, 12000)).toBe(false);
  });

  it('keeps the execution a delivery started and forgets a delivery on request', async () => {
    await store.rememberDelivery('hook', 'd2', 1000, 6000);
    await store.attachExecution('hook', 'd2', 'exec-1');
    expect(await store.deliveryExecution('hook', 'd2', 2000)).toBe('exec-1');
    expect(await store.deliveryExecution('hook', 'd2', 6000)).toBeUndefined();
    await store.forgetDelivery('hook', 'd2');
    expect(await store.rememberDelivery('hook', 'd2', 2000, 7000)).toBe(true);
  });

  it('remembers the keys of one delivery all or none, noting the execution', async () => {
    const id = { scope: 'hook', id: 'd3' };
    const signature = { scope: 'signature:hook', id: 'ab' };
    expect(await store.rememberDeliveries([id, signature], 1000, 6000, 'exec-3')).toBe(-1);
    expect(await store.deliveryExecution('signature:hook', 'ab', 2000)).toBe('exec-3');
    // A new id with a signature seen: refused at the signature, and the new id is not kept.
    const other = { scope: 'hook', id: 'd4' };
    expect(await store.rememberDeliveries([other, signature], 2000, 7000, 'exec-4')).toBe(1);
    expect(await store.rememberDelivery('hook', 'd4', 2000, 7000)).toBe(true);
    expect(await store.rememberDeliveries([id], 2000, 7000, 'exec-5')).toBe(0);
    expect(await store.deliveryExecution('hook', 'd3', 2000)).toBe('exec-3');
    // Once expired, the keys are taken again, with the new execution.
    expect(await store.rememberDeliveries([id, signature], 6000, 11000, 'exec-6')).toBe(-1);
    expect(await store.deliveryExecution('hook', 'd3', 7000)).toBe('exec-6');
  });

  it('lets exactly one of many concurrent claims of one delivery through', async () => {
    const keys = [{ scope: 'hook', id: 'race-2' }];
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => store.rememberDeliveries(keys, 1000, 9000, undefined)),
    );
    expect(answers.filter((seen) => seen < 0)).toHaveLength(1);
  });

  it('lets exactly one of many concurrent deliveries of one id through', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => store.rememberDelivery('hook', 'race', 1000, 9000)),
    );
    expect(answers.filter(Boolean)).toHaveLength(1);
  });

  it('gives a token bucket its capacity, then refills at its rate', async () => {
    const spec: BucketSpec = { capacity: 3, refillPerMs: 1 / 1000 };
    const taken = [];
    for (let i = 0; i < 4; i++) taken.push(await store.takeToken('b', spec, 10_000));
    expect(taken.map((t) => t.allowed)).toEqual([true, true, true, false]);
    expect(taken[3]!.retryAfterMs).toBe(1000);
    expect((await store.takeToken('b', spec, 10_500)).allowed).toBe(false);
    expect((await store.takeToken('b', spec, 11_000)).allowed).toBe(true);
    expect((await store.takeToken('other', spec, 11_000)).allowed).toBe(true);
  });

  it('never refills a bucket when the clock goes back', async () => {
    const spec: BucketSpec = { capacity: 1, refillPerMs: 1 / 1000 };
    expect((await store.takeToken('c', spec, 50_000)).allowed).toBe(true);
    expect((await store.takeToken('c', spec, 10_000)).allowed).toBe(false);
  });

  it('allows no more concurrent takes than the bucket holds', async () => {
    const spec: BucketSpec = { capacity: 5, refillPerMs: 1e-9 };
    const results = await Promise.all(
      Array.from({ length: 30 }, () => store.takeToken('d', spec, 1000)),
    );
    expect(results.filter((r) => r.allowed)).toHaveLength(5);
  });

  it('stores the next fire of a schedule as a UTC instant and clears it', async () => {
    expect(await store.getNextFire('wf', 's0')).toBeUndefined();
    await store.setNextFire('wf', 's0', Date.UTC(2026, 2, 29, 1));
    await store.setNextFire('wf', 's0', Date.UTC(2026, 2, 30, 1));
    expect(await store.getNextFire('wf', 's0')).toBe(Date.UTC(2026, 2, 30, 1));
    await store.clearSchedules('wf');
    expect(await store.getNextFire('wf', 's0')).toBeUndefined();
  });

  it('claims a schedule fire exactly once, even when claimed concurrently', async () => {
    const at = Date.UTC(2026, 0, 1);
    const claims = await Promise.all(
      Array.from({ length: 10 }, () => store.claimFire('wf', 's0', at, at + 5)),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await store.claimFire('wf', 's1', at, at)).toBe(true);
    expect(await store.claimFire('wf2', 's0', at, at)).toBe(true);
  });

  it('claims many fires at once, each exactly once, and stores many next fires', async () => {
    const fires = Array.from({ length: 1200 }, (_, i) => ({
      workflow: `w${i}`,
      triggerId: 't',
      fireAtMs: 1000,
    }));
    await store.claimFire('w7', 't', 1000, 1000);
    const [a, b] = await Promise.all([
      store.claimFires(fires, 1000),
      store.claimFires(fires, 1000),
    ]);
    expect(a.length + b.length).toBe(1199);
    expect([...a, ...b].some((f) => f.workflow === 'w7')).toBe(false);
    await store.setNextFires(fires.map((f, i) => ({ ...f, fireAtMs: 5000 + i })));
    await store.setNextFires([{ workflow: 'w3', triggerId: 't', fireAtMs: 42 }]);
    expect(await store.getNextFire('w1199', 't')).toBe(6199);
    expect(await store.getNextFire('w3', 't')).toBe(42);
  });

  it('prunes expired deliveries and old claims', async () => {
    await store.rememberDelivery('hook', 'old', 0, 100);
    await store.claimFire('wf', 's0', 5, 5);
    await store.prune(200, 10);
    expect(await store.claimFire('wf', 's0', 5, 300)).toBe(true);
    expect(await store.rememberDelivery('hook', 'old', 200, 400)).toBe(true);
  });
}
