import { keyPrincipal } from '@weft/core';
import { afterEach, describe, expect, it } from 'vitest';
import { openTestExecutionsStore, type TestExecutionsStore } from '@weft/store';
import { loadRequestedWorkflow } from '../executions/definition.js';
import {
  ManualClock,
  TWO_STEPS,
  WAIT_STORES,
  waitWorld,
  type WaitWorld,
} from '../test-support/waits.js';

let store: TestExecutionsStore | undefined;
let world: WaitWorld | undefined;

afterEach(async () => {
  await world?.close();
  await store?.dispose();
  store = world = undefined;
});

const approval = (timeoutMs?: number) => ({
  kind: 'approval',
  ...(timeoutMs !== undefined ? { timeoutMs } : {}),
});

describe.each(WAIT_STORES)('wait deadlines on $name', ({ kind, url, skip }) => {
  it.skipIf(skip)('fails a wait with TIMEOUT at its deadline, not before', async () => {
    store = await openTestExecutionsStore(kind, url);
    world = waitWorld(store);
    const clock = new ManualClock();
    const h = await world.replica({ clock });
    const { id } = await world.startWaiting(h, approval(60_000));
    expect(h.runtime.deadlines.nextDeadline).toBe(clock.ms + 60_000);
    clock.ms += 59_999;
    expect(await h.runtime.deadlines.expireDue()).toBe(0);
    expect((await store.executions.get(id))?.status).toBe('waiting');
    clock.ms += 1_500;
    expect(await h.runtime.deadlines.expireDue()).toBe(1);
    const ended = await h.runtime.get(id, 'alice');
    expect(ended).toMatchObject({
      status: 'failed',
      error: { code: 'TIMEOUT', details: { timeout_ms: 60_000, elapsed_ms: 61_499 } },
      finished_at: new Date(clock.ms).toISOString(),
    });
    const events = await store.executions.events(id, 0, 10);
    expect(events.map((e) => e.type)).toEqual(['approval.requested', 'workflow.completed']);
    expect((await h.runtime.resumeExecution(id)).won).toBe(false);
    expect(h.runtime.deadlines.nextDeadline).toBeUndefined();
    expect(world.calls).toEqual([]);
  });

  it.skipIf(skip)(
    'keeps waits across a restart: the new runtime re-arms from the store, decides and expires them',
    async () => {
      store = await openTestExecutionsStore(kind, url);
      world = waitWorld(store);
      const clock = new ManualClock();
      const first = await world.replica({ clock });
      const soon = await world.startWaiting(first, approval(60_000));
      const later = await world.startWaiting(first, approval(120_000));
      const endless = await world.startWaiting(first, approval());
      await world.close();

      const second = await world.replica({ clock });
      const deadline = (e: { created_at: string }, ms: number) => Date.parse(e.created_at) + ms;
      expect(second.runtime.deadlines.nextDeadline).toBe(deadline(soon, 60_000));
      expect((await second.runtime.endWaiting(soon.id)).won).toBe(true);
      // Decided, the nearest wait no longer holds the timer: the next one in the store does.
      await expect.poll(() => second.runtime.deadlines.nextDeadline).toBe(deadline(later, 120_000));
      const soonest = await world.startWaiting(second, approval(60_000));
      expect(second.runtime.deadlines.nextDeadline).toBe(deadline(soonest, 60_000));
      expect((await second.runtime.resumeExecution(later.id)).won).toBe(true);
      const ran = await second.runtime.waitFor(later.id, 'alice', 10_000);
      expect(ran).toMatchObject({ status: 'completed', result: { outputs: { last: 2 } } });
      clock.ms += 60_000;
      expect(await second.runtime.deadlines.expireDue()).toBe(1);
      expect((await store.executions.get(soonest.id))?.status).toBe('failed');
      expect((await store.executions.get(soon.id))?.status).toBe('canceled');
      expect((await store.executions.get(endless.id))?.status).toBe('waiting');
      expect(second.runtime.deadlines.nextDeadline).toBeUndefined();
    },
  );

  it.skipIf(skip)(
    'ends more waits due at once than one query finds, in one pass',
    async () => {
      store = await openTestExecutionsStore(kind, url);
      world = waitWorld(store);
      const clock = new ManualClock();
      const h = await world.replica({ clock });
      const request = {
        ...loadRequestedWorkflow({ workflow: TWO_STEPS }),
        trigger: { type: 'schedule' },
        principal: keyPrincipal({ keyId: 'ka', owner: 'alice' }),
        wait: approval(1_000),
      };
      const started = await h.runtime.startExecutions(Array.from({ length: 150 }, () => request));
      expect(started.every((s) => s.status === 'fulfilled')).toBe(true);
      expect(h.runtime.deadlines.nextDeadline).toBe(clock.ms + 1_000);
      clock.ms += 1_000;
      expect(await h.runtime.deadlines.expireDue()).toBe(150);
      const failed = await store.executions.list({ owner: 'alice', status: 'failed', limit: 300 });
      expect(failed).toHaveLength(150);
      expect(await store.executions.nextWaitDeadline()).toBeUndefined();
    },
    30_000,
  );

  it.skipIf(skip)('learns the deadlines of waits other replicas start', async () => {
    store = await openTestExecutionsStore(kind, url);
    world = waitWorld(store);
    const clock = new ManualClock();
    const watching = await world.replica({ clock, sweepMs: 50 });
    const starting = await world.replica({ clock });
    const { created_at } = await world.startWaiting(starting, approval(30_000));
    await expect
      .poll(() => watching.runtime.deadlines.nextDeadline, { timeout: 5000 })
      .toBe(Date.parse(created_at) + 30_000);
  });

  it.skipIf(skip)('arms a real timer: a short wait fails on its own', async () => {
    store = await openTestExecutionsStore(kind, url);
    world = waitWorld(store);
    const h = await world.replica();
    const { id } = await world.startWaiting(h, approval(150));
    const ended = await h.runtime.waitFor(id, 'alice', 10_000);
    expect(ended).toMatchObject({ status: 'failed', error: { code: 'TIMEOUT' } });
  });

  it.skipIf(skip)(
    'resumes a run suspended mid-way from its journal: no step runs twice',
    async () => {
      store = await openTestExecutionsStore(kind, url);
      world = waitWorld(store);
      const first = await world.replica();
      const started = await first.runtime.startExecution({
        ...loadRequestedWorkflow({ workflow: TWO_STEPS }),
        trigger: { type: 'api' },
        principal: keyPrincipal({ keyId: 'ka', owner: 'alice' }),
      });
      await started.done;
      // A run that stopped after step a, as a wait-for-event step will: step b not journaled yet.
      const { id } = started.execution;
      const steps = await store.executions.steps(id);
      const a = steps.filter((s) => s.path === 'a');
      const copy = { ...started.execution, id: `${id}-copy`, status: 'pending' as const };
      await store.executions.create(copy);
      await store.executions.claim(copy.id, 'gone', 0, 1, new Date().toISOString());
      await store.executions.journal(copy.id, a, []);
      const wait = { kind: 'event', since: new Date().toISOString(), expires_at: null };
      expect(await store.executions.suspend(copy.id, 'gone', wait, [])).toBe(true);
      world.calls.length = 0;
      expect((await first.runtime.resumeExecution(copy.id, { kind: 'event' })).won).toBe(true);
      const ended = await first.runtime.waitFor(copy.id, 'alice', 10_000);
      expect(ended).toMatchObject({ status: 'completed', result: { outputs: { last: 2 } } });
      expect(world.calls).toEqual(['step 2']);
    },
  );
});
