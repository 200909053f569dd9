import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { ExecutionOutcome, ExecutionsStore, StoredExecution, WaitingFor } from '@weft/core';
import type { TestExecutions } from './executions-test-store.js';

let counter = 0;

/** A deadline `s` seconds after 2026-01-01T00:00:00Z, as ms. */
const at = (s: number) => Date.UTC(2026, 0, 1, 0, 0, s);
const iso = (s: number) => new Date(at(s)).toISOString();

function waitingFor(expiresAt: number | null): WaitingFor {
  return {
    kind: 'approval',
    since: iso(0),
    expires_at: expiresAt === null ? null : new Date(expiresAt).toISOString(),
    approvers: ['ops'],
  };
}

/** A new execution waiting until `expiresAt` (ms; null: no deadline). */
function waiting(expiresAt: number | null = at(60)): StoredExecution {
  counter++;
  return {
    id: `wait-${String(counter).padStart(4, '0')}`,
    owner: 'acme',
    key_id: 'key1',
    workflow: 'w',
    workflow_version: '1.0.0',
    mode: 'cloud',
    status: 'waiting',
    waiting_for: waitingFor(expiresAt),
    definition: { workflow: { name: 'w', steps: [] }, library: [] },
    inputs: {},
    trigger: { type: 'api' },
    callback_url: null,
    created_at: iso(counter % 60),
    started_at: null,
    finished_at: null,
    canceled_at: null,
    result: null,
    error: null,
    callback: null,
  };
}

const event = (seq: number, type: string) => ({ seq, type, json: JSON.stringify({ type, seq }) });

const REJECTED: ExecutionOutcome = {
  status: 'canceled',
  finished_at: iso(30),
  canceled_at: iso(30),
  result: { outputs: {}, steps: {} },
  error: {
    status: 'error',
    code: 'CANCELED',
    message: 'rejected',
    details: { canceled_at: iso(30) },
  },
  callback: null,
};
const EXPIRED: ExecutionOutcome = {
  ...REJECTED,
  status: 'failed',
  canceled_at: null,
  error: { status: 'error', code: 'TIMEOUT', message: 'expired', details: {} },
};

/** The contract of waiting executions every {@link ExecutionsStore} passes. */
export function executionsWaitsContract(open: () => Promise<TestExecutions>): void {
  let test: TestExecutions;
  let store: ExecutionsStore;
  beforeEach(async () => {
    await test?.dispose();
    test = await open();
    store = test.executions;
  });
  afterAll(() => test?.dispose());

  describe('waiting executions', () => {
    it('stores one waiting with its first events; nobody claims or renews it', async () => {
      const record = waiting();
      const created = await store.create(record, undefined, undefined, [
        event(1, 'approval.requested'),
      ]);
      expect(created).toEqual({ created: true, execution: record });
      expect(await store.get(record.id)).toEqual(record);
      expect(await store.events(record.id, 0, 10)).toEqual([event(1, 'approval.requested')]);
      expect(await store.claimable(Number.MAX_SAFE_INTEGER, 10)).toEqual([]);
      expect(
        await store.claim(record.id, 'w1', Number.MAX_SAFE_INTEGER, 1e15, 'x'),
      ).toBeUndefined();
      expect(await store.renew('w1', [record.id], 1e15)).toEqual([record.id]);
      const listed = await store.list({ owner: 'acme', status: 'waiting', limit: 10 });
      expect(listed.map((e) => e.id)).toEqual([record.id]);
    });

    it('gives the execution created waiting under an idempotency key again', async () => {
      const claim = { key_id: 'key1', key: 'approve-me', fingerprint: 'f' };
      const first = waiting();
      await store.create(first, claim, undefined, [event(1, 'approval.requested')]);
      const again = await store.create(waiting(), claim, undefined, [
        event(1, 'approval.requested'),
      ]);
      expect(again).toEqual({ created: false, execution: first, fingerprint: 'f' });
    });

    it('resumes it once: it becomes claimable and keeps what it waited for', async () => {
      const record = waiting();
      await store.create(record, undefined, undefined, [event(1, 'approval.requested')]);
      expect(await store.resume(record.id, [event(2, 'approval.granted')])).toBe(true);
      expect(await store.resume(record.id, [event(3, 'approval.granted')])).toBe(false);
      expect((await store.events(record.id, 0, 10)).map((e) => e.type)).toEqual([
        'approval.requested',
        'approval.granted',
      ]);
      expect(await store.claimable(1, 10)).toEqual([record.id]);
      const claimed = await store.claim(record.id, 'w1', 1, 1000, iso(40));
      expect(claimed).toMatchObject({ status: 'running', started_at: iso(40) });
      expect(claimed?.waiting_for).toEqual(record.waiting_for);
      expect(await store.nextWaitDeadline()).toBeUndefined();
    });

    it('resumes with a new waiting_for in the same write: only the winner’s is kept', async () => {
      const record = waiting();
      await store.create(record, undefined, undefined, []);
      const decided = (verdict: string) => ({ ...record.waiting_for!, decision: { verdict } });
      const won = await Promise.all([
        store.resume(record.id, [event(1, 'tool_call.granted')], decided('approve')),
        store.resume(record.id, [event(1, 'tool_call.rejected')], decided('reject')),
      ]);
      expect(won.sort()).toEqual([false, true]);
      const [written] = await store.events(record.id, 0, 10);
      const kept = (await store.get(record.id))?.waiting_for;
      expect(kept).toEqual(decided(written!.type === 'tool_call.granted' ? 'approve' : 'reject'));
    });

    it('lets one of two concurrent resumes win', async () => {
      const record = waiting();
      await store.create(record, undefined, undefined, []);
      const won = await Promise.all([
        store.resume(record.id, [event(1, 'approval.granted')]),
        store.resume(record.id, [event(1, 'approval.granted')]),
      ]);
      expect(won.sort()).toEqual([false, true]);
      expect(await store.events(record.id, 0, 10)).toHaveLength(1);
    });

    it('lets one of a concurrent end and resume win, and writes only the winner’s', async () => {
      for (let round = 0; round < 4; round++) {
        const record = waiting();
        await store.create(record, undefined, undefined, []);
        const [ended, resumed] = await Promise.all([
          store.endWaiting(record.id, REJECTED, { events: [event(1, 'approval.rejected')] }),
          store.resume(record.id, [event(1, 'approval.granted')]),
        ]);
        expect(ended).not.toBe(resumed);
        const after = await store.get(record.id);
        expect(after?.status).toBe(ended ? 'canceled' : 'pending');
        expect((await store.events(record.id, 0, 10)).map((e) => e.type)).toEqual([
          ended ? 'approval.rejected' : 'approval.granted',
        ]);
      }
    });

    it('ends a waiting execution once, with its usage; never one that does not wait', async () => {
      const record = waiting();
      await store.create(record);
      const usage = {
        keyId: 'key1',
        owner: 'acme',
        date: '2026-01-01',
        delta: { executions: 1, action_calls: 0, duration_ms: 0 },
      };
      expect(await store.endWaiting(record.id, REJECTED, { events: [], usage })).toBe(true);
      expect(await store.endWaiting(record.id, REJECTED, { events: [], usage })).toBe(false);
      expect(await store.get(record.id)).toMatchObject({
        status: 'canceled',
        canceled_at: iso(30),
        error: REJECTED.error,
      });
      expect(await store.usage('acme', '2026-01-01')).toMatchObject([{ executions: 1 }]);
      const pending = { ...waiting(), status: 'pending' as const };
      delete pending.waiting_for;
      await store.create(pending);
      expect(await store.endWaiting(pending.id, REJECTED, { events: [] })).toBe(false);
      expect((await store.get(pending.id))?.status).toBe('pending');
    });

    it('is canceled like any unfinished execution', async () => {
      const record = waiting();
      await store.create(record);
      expect(await store.finish(record.id, REJECTED, { events: [] })).toBe(true);
      expect(await store.resume(record.id, [])).toBe(false);
      expect((await store.get(record.id))?.status).toBe('canceled');
    });
  });

  describe('deadlines', () => {
    it('finds the earliest deadline and the expired waits, earliest first', async () => {
      expect(await store.nextWaitDeadline()).toBeUndefined();
      const late = waiting(at(50));
      const early = waiting(at(10));
      const middle = waiting(at(30));
      const never = waiting(null);
      for (const record of [late, early, middle, never]) await store.create(record);
      expect(await store.nextWaitDeadline()).toBe(at(10));
      expect(await store.expiredWaits(at(9), 10)).toEqual([]);
      expect(await store.expiredWaits(at(30), 10)).toEqual([early.id, middle.id]);
      expect(await store.expiredWaits(at(99), 2)).toEqual([early.id, middle.id]);
      await store.resume(early.id, []);
      await store.finish(middle.id, REJECTED, { events: [] });
      expect(await store.nextWaitDeadline()).toBe(at(50));
      expect(await store.expiredWaits(at(99), 10)).toEqual([late.id]);
    });

    it('expires a wait only once its deadline has passed', async () => {
      const record = waiting(at(20));
      await store.create(record);
      expect(await store.endWaiting(record.id, EXPIRED, { events: [] }, at(19))).toBe(false);
      expect(await store.endWaiting(record.id, EXPIRED, { events: [] }, at(20))).toBe(true);
      expect((await store.get(record.id))?.status).toBe('failed');
      const endless = waiting(null);
      await store.create(endless);
      expect(await store.endWaiting(endless.id, EXPIRED, { events: [] }, at(1e6))).toBe(false);
      expect(await store.endWaiting(endless.id, REJECTED, { events: [] })).toBe(true);
    });
  });

  describe('suspension', () => {
    it('suspends a running execution its worker holds, which resumes from where it was', async () => {
      const record = { ...waiting(), status: 'pending' as const };
      delete record.waiting_for;
      await store.create(record);
      await store.claim(record.id, 'w1', 0, 1000, iso(5));
      const wait = { ...waitingFor(at(90)), kind: 'event' };
      expect(await store.suspend(record.id, 'w2', wait, [])).toBe(false);
      expect(await store.suspend(record.id, 'w1', wait, [event(1, 'event.requested')])).toBe(true);
      expect(await store.get(record.id)).toMatchObject({ status: 'waiting', waiting_for: wait });
      expect(await store.renew('w1', [record.id], 2000)).toEqual([record.id]);
      expect(await store.claimable(Number.MAX_SAFE_INTEGER, 10)).toEqual([]);
      expect(await store.nextWaitDeadline()).toBe(at(90));
      expect(await store.resume(record.id, [])).toBe(true);
      const claimed = await store.claim(record.id, 'w2', 1, 3000, iso(50));
      expect(claimed?.started_at).toBe(iso(5));
    });
  });
}
