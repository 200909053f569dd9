import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { replicaWorkerId, type ExecutionsStore } from '@weft/core';
import { DONE, execution, sortedByPath } from './executions-contract-fixtures.js';
import { executionsJournalContract } from './executions-journal.contract.js';
import { executionsUpkeepContract } from './executions-upkeep.contract.js';
import type { TestExecutions } from './executions-test-store.js';

/** The contract every {@link ExecutionsStore} implementation passes. */
export function executionsStoreContract(open: () => Promise<TestExecutions>): void {
  let test: TestExecutions;
  let store: ExecutionsStore;
  beforeEach(async () => {
    await test?.dispose();
    test = await open();
    store = test.executions;
  });
  afterAll(() => test?.dispose());
  executionsUpkeepContract(() => store);
  executionsJournalContract(() => store);

  describe('records', () => {
    it('stores a pending execution and reads it back as it was', async () => {
      const record = execution({ callback_url: 'https://example.com/cb' });
      expect(await store.create(record)).toEqual({ created: true, execution: record });
      expect(await store.get(record.id)).toEqual(record);
      expect(await store.get('nope')).toBeUndefined();
    });

    it('keeps the trace context of an execution, on the fast path and with a lease', async () => {
      const trace_context = {
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
        tracestate: 'vendor=1',
      };
      const plain = execution({ trace_context });
      await store.create(plain);
      expect((await store.get(plain.id))!.trace_context).toEqual(trace_context);
      const leased = execution({ status: 'running', trace_context });
      await store.create(
        leased,
        { key_id: 'key1', key: 'trace-1', fingerprint: 'f' },
        {
          worker: 'w1',
          until: 5000,
        },
      );
      expect((await store.claim(leased.id, 'w2', 6000, 9000, 'x'))!.trace_context).toEqual(
        trace_context,
      );
    });

    it('stores a resumed execution with its seeded journal, which its claimer reads', async () => {
      const resumed_from = { execution_id: 'exec-original', step: 'second' };
      const steps = [
        { path: 'first', json: '{"path":"first"}' },
        { path: 'block/child', json: '{"path":"block/child"}' },
      ];
      const pending = execution({ resumed_from });
      await store.create(pending, undefined, undefined, [], steps);
      expect(await store.get(pending.id)).toEqual(pending);
      expect((await store.claim(pending.id, 'w1', 1000, 5000, 'x'))!.resumed_from).toEqual(
        resumed_from,
      );
      expect(sortedByPath(await store.steps(pending.id))).toEqual(sortedByPath(steps));
      const leased = execution({ status: 'running', resumed_from });
      await store.create(leased, undefined, { worker: 'w1', until: 5000 }, [], steps.slice(0, 1));
      expect(await store.steps(leased.id)).toEqual(steps.slice(0, 1));
      const first = execution({ resumed_from: { execution_id: 'x', step: 'first' } });
      await store.create(first, undefined, undefined, [], []);
      expect(await store.get(first.id)).toEqual(first);
      expect(await store.steps(first.id)).toEqual([]);
    });

    it('returns the execution created under the same idempotency key, with its fingerprint', async () => {
      const first = execution();
      const claim = { key_id: 'key1', key: 'k-1', fingerprint: 'f1' };
      await store.create(first, claim);
      const again = await store.create(execution(), { ...claim, fingerprint: 'f2' });
      expect(again).toEqual({ created: false, execution: first, fingerprint: 'f1' });
      const other = execution();
      expect((await store.create(other, { ...claim, key_id: 'key2' })).created).toBe(true);
    });

    it('lets only one of two concurrent creations with one idempotency key win', async () => {
      const claim = { key_id: 'key1', key: 'race', fingerprint: 'f' };
      const [a, b] = await Promise.all([
        store.create(execution(), claim),
        store.create(execution(), claim),
      ]);
      expect([a.created, b.created].sort()).toEqual([false, true]);
      expect(a.execution.id).toBe(b.execution.id);
    });

    it('lists an owner’s executions newest first, filtered, page after page', async () => {
      const made = [];
      for (let i = 0; i < 5; i++) {
        const record = execution({ workflow: i % 2 === 0 ? 'even' : 'odd' });
        made.push(record);
        await store.create(record);
      }
      await store.create(execution({ owner: 'other' }));
      const first = await store.list({ owner: 'acme', limit: 2 });
      expect(first.map((e) => e.id)).toEqual([made[4]!.id, made[3]!.id]);
      const last = first.at(-1)!;
      const second = await store.list({
        owner: 'acme',
        limit: 10,
        after: { created_at: last.created_at, id: last.id },
      });
      expect(second.map((e) => e.id)).toEqual([made[2]!.id, made[1]!.id, made[0]!.id]);
      const even = await store.list({ owner: 'acme', workflow: 'even', limit: 10 });
      expect(even).toHaveLength(3);
      await store.claim(made[0]!.id, 'w1', 0, 1, '2026-01-01T00:00:00.000Z');
      expect(
        (await store.list({ owner: 'acme', status: 'running', limit: 10 })).map((e) => e.id),
      ).toEqual([made[0]!.id]);
    });
  });

  describe('filters and counts', () => {
    it('lists by trigger and by a time range of created_at, paging within them', async () => {
      const at = (minute: number) => new Date(Date.UTC(2026, 1, 1, 0, minute)).toISOString();
      const made = [];
      for (let i = 0; i < 6; i++) {
        const record = execution({
          created_at: at(i),
          trigger: { type: i % 3 === 0 ? 'schedule' : 'api' },
        });
        made.push(record);
        await store.create(record);
      }
      const ids = (list: { id: string }[]) => list.map((e) => e.id);
      expect(ids(await store.list({ owner: 'acme', trigger: 'schedule', limit: 10 }))).toEqual([
        made[3]!.id,
        made[0]!.id,
      ]);
      const range = { owner: 'acme', from: at(1), to: at(4), limit: 2 };
      const first = await store.list(range);
      expect(ids(first)).toEqual([made[3]!.id, made[2]!.id]);
      const last = first.at(-1)!;
      expect(
        ids(await store.list({ ...range, after: { created_at: last.created_at, id: last.id } })),
      ).toEqual([made[1]!.id]);
      expect(
        ids(await store.list({ owner: 'acme', trigger: 'api', from: at(4), limit: 10 })),
      ).toEqual([made[5]!.id, made[4]!.id]);
    });

    it('counts executions per hour and status, and duration percentiles per workflow', async () => {
      const hour = (h: number, m = 0, s = 0) =>
        new Date(Date.UTC(2026, 2, 1, h, m, s)).toISOString();
      const ended = (h: number, workflow: string, seconds: number, status = 'completed') =>
        execution({
          workflow,
          status: status as 'completed',
          created_at: hour(h, 1),
          started_at: hour(h, 2),
          finished_at: hour(h, 2, seconds),
        });
      const rows = [
        ended(10, 'pay', 1),
        ended(10, 'pay', 2),
        ended(10, 'pay', 3, 'failed'),
        ended(11, 'pay', 4),
        ended(11, 'pay', 50),
        ended(11, 'mail', 7),
        execution({ workflow: 'mail', created_at: hour(11, 30) }),
        execution({ workflow: 'pay', created_at: hour(9) }),
        execution({ workflow: 'pay', owner: 'other', created_at: hour(10) }),
      ];
      for (const row of rows) await store.create(row);
      const stats = await store.stats({ owner: 'acme', since: hour(10), until: hour(12) });
      expect(stats.hours).toEqual([
        { hour: '2026-03-01T10', status: 'completed', count: 2 },
        { hour: '2026-03-01T10', status: 'failed', count: 1 },
        { hour: '2026-03-01T11', status: 'completed', count: 3 },
        { hour: '2026-03-01T11', status: 'pending', count: 1 },
      ]);
      expect(stats.workflows).toEqual([
        { workflow: 'mail', count: 1, p50_ms: 7000, p95_ms: 7000 },
        { workflow: 'pay', count: 5, p50_ms: 3000, p95_ms: 50000 },
      ]);
      const all = await store.stats({ owner: undefined, since: hour(10), until: hour(11) });
      expect(all.hours).toContainEqual({ hour: '2026-03-01T10', status: 'pending', count: 1 });
    });
  });

  describe('leases', () => {
    it('claims a pending execution once, and a running one only after its lease expired', async () => {
      const record = execution();
      await store.create(record);
      const claimed = await store.claim(record.id, 'w1', 1000, 2000, '2026-01-01T00:00:01.000Z');
      expect(claimed).toMatchObject({ status: 'running', started_at: '2026-01-01T00:00:01.000Z' });
      expect(await store.claim(record.id, 'w2', 1500, 2500, 'x')).toBeUndefined();
      expect(await store.claimable(1500, 10)).toEqual([]);
      expect(await store.claimable(2001, 10)).toEqual([record.id]);
      const taken = await store.claim(record.id, 'w2', 2001, 3000, '2026-01-01T00:00:09.000Z');
      expect(taken?.started_at).toBe('2026-01-01T00:00:01.000Z');
      expect(await store.renew('w1', [record.id], 9000)).toEqual([record.id]);
      expect(await store.renew('w2', [record.id], 9000)).toEqual([]);
    });

    it('stores a new execution already running under a lease, which nobody else claims', async () => {
      const record = execution({ status: 'running', started_at: '2026-01-01T00:00:00.500Z' });
      await store.create(record, undefined, { worker: 'w1', until: 5000 });
      expect(await store.get(record.id)).toMatchObject({
        status: 'running',
        started_at: record.started_at,
      });
      expect(await store.claimable(4999, 10)).toEqual([]);
      expect(await store.claim(record.id, 'w2', 4999, 9000, 'x')).toBeUndefined();
      expect(await store.renew('w1', [record.id], 8000)).toEqual([]);
      expect(await store.claimable(7999, 10)).toEqual([]);
      expect(await store.claimable(8001, 10)).toEqual([record.id]);
      const taken = await store.claim(record.id, 'w2', 8001, 9000, 'x');
      expect(taken?.started_at).toBe(record.started_at);
    });

    it('counts the executions waiting to be claimed', async () => {
      const pending = execution();
      const leased = execution();
      const expired = execution();
      const ended = execution();
      for (const record of [pending, leased, expired, ended]) await store.create(record);
      await store.claim(leased.id, 'w1', 0, 5000, 'x');
      await store.claim(expired.id, 'w1', 0, 500, 'x');
      await store.claim(ended.id, 'w1', 0, 5000, 'x');
      await store.finish(ended.id, DONE, { events: [] });
      expect(await store.claimableCount(1000)).toBe(2);
      expect(await store.claimableCount(6000)).toBe(3);
    });

    it("releases at once the leases of a replica's earlier processes, and no one else's", async () => {
      const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
      const old = replicaWorkerId('replica-a', uuid(1));
      const current = replicaWorkerId('replica-a', uuid(2));
      const far = 1e15;
      const held = execution({ status: 'running' });
      const mine = execution({ status: 'running' });
      const other = execution({ status: 'running' });
      const nested = execution({ status: 'running' });
      await store.create(held, undefined, { worker: old, until: far });
      await store.create(mine, undefined, { worker: current, until: far });
      await store.create(other, undefined, {
        worker: replicaWorkerId('replica-b', uuid(1)),
        until: far,
      });
      // A replica whose name begins with the first one's and its separator.
      await store.create(nested, undefined, {
        worker: replicaWorkerId('replica-a#x', uuid(1)),
        until: far,
      });
      expect(await store.claimable(1000, 10)).toEqual([]);

      expect(await store.releaseReplicaLeases('replica-a', current)).toBe(1);
      expect(await store.claimable(1000, 10)).toEqual([held.id]);
      expect((await store.claim(held.id, current, 1000, 9000, 'x'))?.status).toBe('running');
      expect(await store.renew(old, [held.id], far)).toEqual([held.id]);
      expect(await store.releaseReplicaLeases('replica-a', current)).toBe(0);
    });

    it('never claims or renews a finished execution', async () => {
      const record = execution();
      await store.create(record);
      await store.claim(record.id, 'w1', 0, 10, 'x');
      expect(await store.finish(record.id, DONE, { events: [] })).toBe(true);
      expect(await store.claim(record.id, 'w1', 1e15, 1e15, 'x')).toBeUndefined();
      expect(await store.renew('w1', [record.id], 99)).toEqual([record.id]);
      expect(await store.claimable(1e15, 10)).toEqual([]);
    });
  });
}
