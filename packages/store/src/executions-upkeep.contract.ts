import { beforeEach, describe, expect, it } from 'vitest';
import type { ExecutionsStore, StoredExecution } from '@weft/core';
import { DONE, event, execution } from './executions-contract-fixtures.js';

/**
 * The part of the executions store contract that keeps the store up: retention, completion
 * callbacks, usage and signing secrets. {@link executionsStoreContract} runs it on the store
 * each of its tests opens (`current`).
 */
export function executionsUpkeepContract(current: () => ExecutionsStore): void {
  let store: ExecutionsStore;
  beforeEach(() => {
    store = current();
  });

  describe('retention', () => {
    const endAt = async (record: StoredExecution, finished: string) => {
      await store.create(record, undefined, undefined, [event(1)]);
      await store.journal(record.id, [{ path: 'a', json: '{}' }], [event(2)]);
      await store.finish(record.id, { ...DONE, finished_at: finished }, { events: [] });
    };

    it('deletes ended executions older than the cutoff with their journal and events, in batches', async () => {
      const old1 = execution();
      const old2 = execution();
      const recent = execution();
      const running = execution({ status: 'running' });
      await endAt(old1, '2026-01-01T00:00:00.000Z');
      await endAt(old2, '2026-01-02T00:00:00.000Z');
      await endAt(recent, '2026-02-01T00:00:00.000Z');
      await store.create(running, undefined, { worker: 'w1', until: 1e15 }, [event(1)]);
      const before = '2026-01-15T00:00:00.000Z';

      expect(await store.deleteEnded({ before, limit: 1 })).toEqual({
        executions: 1,
        steps: 1,
        events: 2,
      });
      expect(await store.get(old1.id)).toBeUndefined();
      expect(await store.steps(old1.id)).toEqual([]);
      expect(await store.events(old1.id, 0, 10)).toEqual([]);
      expect(await store.get(old2.id)).toBeDefined();
      expect((await store.deleteEnded({ before, limit: 10 })).executions).toBe(1);
      expect((await store.deleteEnded({ before, limit: 10 })).executions).toBe(0);
      for (const kept of [recent, running]) {
        expect(await store.get(kept.id)).toBeDefined();
        expect((await store.events(kept.id, 0, 10)).length).toBeGreaterThan(0);
      }
    });

    it('deletes only one workflow of one owner, or every other one', async () => {
      const mine = execution({ workflow: 'orders' });
      const theirs = execution({ workflow: 'orders', owner: 'other' });
      const another = execution({ workflow: 'reports' });
      for (const record of [mine, theirs, another]) await endAt(record, '2026-01-01T00:00:00.000Z');
      const before = '2026-06-01T00:00:00.000Z';
      const orders = { owner: 'acme', workflow: 'orders' };

      expect((await store.deleteEnded({ before, except: [orders], limit: 10 })).executions).toBe(2);
      expect(await store.get(mine.id)).toBeDefined();
      expect((await store.deleteEnded({ before, only: orders, limit: 10 })).executions).toBe(1);
      expect(await store.get(mine.id)).toBeUndefined();
    });
  });

  describe('callbacks, usage and secrets', () => {
    it('records callback attempts and the delivery state', async () => {
      const record = execution({ callback_url: 'https://example.com' });
      await store.create(record);
      const pending = {
        status: 'pending' as const,
        attempts: 0,
        last_status: null,
        last_error: null,
        webhook_id: 'msg_1',
        delivered_at: null,
      };
      await store.finish(record.id, { ...DONE, callback: pending }, { events: [] });
      expect(await store.pendingCallbacks(10)).toEqual([record.id]);
      await store.recordCallback(
        record.id,
        { attempt: 1, at: DONE.finished_at, status: 503, error: 'HTTP 503', duration_ms: 3 },
        { ...pending, attempts: 1, last_status: 503, last_error: 'HTTP 503' },
      );
      const delivered = { ...pending, status: 'delivered' as const, attempts: 2, last_status: 200 };
      await store.recordCallback(
        record.id,
        { attempt: 2, at: DONE.finished_at, status: 200, error: null, duration_ms: 2 },
        { ...delivered, delivered_at: DONE.finished_at },
      );
      expect((await store.callbackAttempts(record.id)).map((a) => a.status)).toEqual([503, 200]);
      expect((await store.get(record.id))!.callback).toMatchObject({
        status: 'delivered',
        attempts: 2,
      });
      expect(await store.pendingCallbacks(10)).toEqual([]);
    });

    it('adds usage per key and day and reports an owner’s', async () => {
      await store.addUsage('k1', 'acme', '2026-01-01', {
        executions: 1,
        action_calls: 2,
        duration_ms: 10,
      });
      await store.addUsage('k1', 'acme', '2026-01-01', {
        executions: 1,
        action_calls: 3,
        duration_ms: 5,
      });
      await store.addUsage('k2', 'acme', '2026-01-02', {
        executions: 0,
        action_calls: 1,
        duration_ms: 1,
      });
      await store.addUsage('k3', 'other', '2026-01-02', {
        executions: 9,
        action_calls: 9,
        duration_ms: 9,
      });
      expect(await store.usage('acme', '2026-01-01')).toEqual([
        { key_id: 'k1', date: '2026-01-01', executions: 2, action_calls: 5, duration_ms: 15 },
        { key_id: 'k2', date: '2026-01-02', executions: 0, action_calls: 1, duration_ms: 1 },
      ]);
      expect(await store.usage('acme', '2026-01-02')).toHaveLength(1);
    });

    it('makes a signing secret once per key and keeps it', async () => {
      const first = await store.signingSecret('k1', () => 'whsec_one');
      expect(first).toBe('whsec_one');
      expect(await store.signingSecret('k1', () => 'whsec_two')).toBe('whsec_one');
      expect(await store.signingSecret('k2', () => 'whsec_two')).toBe('whsec_two');
    });
  });
}
