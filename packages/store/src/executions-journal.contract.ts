import { beforeEach, describe, expect, it } from 'vitest';
import type { ExecutionOutcome, ExecutionsStore } from '@weft/core';
import { DONE, event, execution, sortedByPath } from './executions-contract-fixtures.js';

/**
 * The part of the executions store contract that journals: steps and events written and read
 * back, ends with their last writes. {@link executionsStoreContract} runs it on the store each
 * of its tests opens (`current`).
 */
export function executionsJournalContract(current: () => ExecutionsStore): void {
  let store: ExecutionsStore;
  beforeEach(() => {
    store = current();
  });

  describe('journal and events', () => {
    it('journals steps with their events and reads both back in order', async () => {
      const record = execution();
      await store.create(record);
      await store.journal(record.id, [{ path: 'a', json: '{"a":1}' }], [event(1), event(2)]);
      await store.journal(record.id, [{ path: 'b', json: '{"b":2}' }], [event(3)]);
      await store.journal(record.id, [], [event(4)]);
      expect((await store.steps(record.id)).sort((x, y) => x.path.localeCompare(y.path))).toEqual([
        { path: 'a', json: '{"a":1}' },
        { path: 'b', json: '{"b":2}' },
      ]);
      expect((await store.events(record.id, 0, 100)).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
      expect((await store.events(record.id, 2, 1)).map((e) => e.seq)).toEqual([3]);
      expect(await store.events(record.id, 1, 1)).toEqual([event(2)]);
      expect(await store.lastEventSeq(record.id)).toBe(4);
      expect(await store.lastEventSeq('none')).toBe(0);
    });

    it('ends an execution once, with its last events; a second end changes nothing', async () => {
      const record = execution();
      await store.create(record);
      expect(
        await store.finish(record.id, DONE, { events: [event(1, 'workflow.completed')] }),
      ).toBe(true);
      const canceled: ExecutionOutcome = {
        ...DONE,
        status: 'canceled',
        canceled_at: DONE.finished_at,
      };
      expect(await store.finish(record.id, canceled, { events: [event(2)] })).toBe(false);
      expect(await store.get(record.id)).toMatchObject({
        status: 'completed',
        finished_at: DONE.finished_at,
        result: DONE.result,
        canceled_at: null,
      });
      expect((await store.events(record.id, 0, 10)).map((e) => e.type)).toEqual([
        'workflow.completed',
      ]);
    });

    it('writes the last steps and the usage with the end, and neither when it had ended', async () => {
      const record = execution();
      await store.create(record);
      const usage = {
        keyId: 'key1',
        owner: 'acme',
        date: '2026-01-01',
        delta: { executions: 1, action_calls: 2, duration_ms: 30 },
      };
      const steps = [{ path: 'last', json: '{"l":1}' }];
      expect(await store.finish(record.id, DONE, { events: [event(1)], steps, usage })).toBe(true);
      expect(await store.steps(record.id)).toEqual(steps);
      expect(await store.usage('acme', '2026-01-01')).toEqual([
        { key_id: 'key1', date: '2026-01-01', executions: 1, action_calls: 2, duration_ms: 30 },
      ]);
      const again = { events: [event(2)], steps: [{ path: 'late', json: '{}' }], usage };
      expect(await store.finish(record.id, DONE, again)).toBe(false);
      expect(await store.steps(record.id)).toEqual(steps);
      expect((await store.usage('acme', '2026-01-01'))[0]).toMatchObject({ executions: 1 });
      const other = execution();
      await store.create(other);
      await store.finish(other.id, DONE, { events: [], usage });
      expect((await store.usage('acme', '2026-01-01'))[0]).toMatchObject({
        executions: 2,
        action_calls: 4,
        duration_ms: 60,
      });
    });

    it('writes any number of last steps and events with the end, escaping none', async () => {
      // PostgreSQL writes a few as parameters and many as arrays: both shapes, odd text included.
      for (const [stepCount, eventCount] of [
        [0, 0],
        [1, 0],
        [0, 1],
        [2, 4],
        [3, 5],
        [12, 30],
      ] as const) {
        const record = execution();
        await store.create(record);
        const steps = Array.from({ length: stepCount }, (_, i) => ({
          path: `s${i}`,
          json: JSON.stringify({ text: `quote ' "and" {brace} \\ ${i}`, i }),
        }));
        const events = Array.from({ length: eventCount }, (_, i) => event(i + 1));
        expect(await store.finish(record.id, DONE, { events, steps })).toBe(true);
        expect(sortedByPath(await store.steps(record.id))).toEqual(sortedByPath(steps));
        expect(await store.events(record.id, 0, 100)).toEqual(events);
        expect((await store.get(record.id))!.status).toBe('completed');
      }
    });

    it('keeps concurrent writes apart: one that fails fails alone', async () => {
      const a = execution();
      const b = execution();
      const results = await Promise.allSettled([
        store.create(a),
        store.create({ ...a, owner: 'copy' }),
        store.create(b),
        store.journal(a.id, [{ path: 's', json: '{}' }], [event(1)]),
      ]);
      expect(results.map((r) => r.status)).toEqual([
        'fulfilled',
        'rejected',
        'fulfilled',
        'fulfilled',
      ]);
      expect((await store.get(a.id))?.owner).toBe('acme');
      expect(await store.get(b.id)).toBeDefined();
      expect(await store.steps(a.id)).toHaveLength(1);
    });

    it('journals writes of every size alike: a step again replaces it, an event again is kept once', async () => {
      const record = execution();
      await store.create(record);
      const step = (path: string, v: number) => ({ path, json: `{"v":${v}}` });
      await store.journal(
        record.id,
        [step('a', 1), step('b', 1)],
        [1, 2, 3, 4].map((n) => event(n)),
      );
      await store.journal(record.id, [step('c', 1)], []);
      await store.journal(
        record.id,
        [step('a', 2), step('d', 1), step('e', 1)],
        [4, 5, 6, 7, 8].map((n) => event(n, 'step.completed')),
      );
      await store.journal(record.id, [step('b', 2)], [event(2, 'step.completed'), event(9)]);
      expect(sortedByPath(await store.steps(record.id))).toEqual([
        step('a', 2),
        step('b', 2),
        step('c', 1),
        step('d', 1),
        step('e', 1),
      ]);
      const events = await store.events(record.id, 0, 100);
      expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(events.filter((e) => e.type === 'step.completed').map((e) => e.seq)).toEqual([
        5, 6, 7, 8,
      ]);
    });

    it('journals a thousand steps in one call', async () => {
      const record = execution();
      await store.create(record);
      const steps = Array.from({ length: 1000 }, (_, i) => ({ path: `s${i}`, json: `{"i":${i}}` }));
      await store.journal(record.id, steps, [event(1)]);
      expect(await store.steps(record.id)).toHaveLength(1000);
    });
  });
}
