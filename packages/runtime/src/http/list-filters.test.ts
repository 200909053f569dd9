import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoredExecution } from '@weft/core';
import { openTestExecutionsStore, type TestExecutions } from '@weft/store';
import {
  buildRuntimeHarness,
  KEYS,
  testActions,
  type RuntimeHarness,
} from '../test-support/harness.js';

let store: TestExecutions;
let h: RuntimeHarness;

beforeEach(async () => {
  store = await openTestExecutionsStore('sqlite');
  h = await buildRuntimeHarness(store.executions, testActions({}));
});

afterEach(async () => {
  await h.close();
  await store.dispose();
});

const get = (url: string, key: string = KEYS.alice) =>
  h.app.inject({ method: 'GET', url, headers: { authorization: key } });

let counter = 0;
/** Stores an ended execution of alice's as the runtime would have. */
async function stored(extra: Partial<StoredExecution>): Promise<StoredExecution> {
  counter++;
  const record: StoredExecution = {
    id: `exec-${String(counter).padStart(4, '0')}`,
    owner: 'alice',
    key_id: 'ka',
    workflow: 'w',
    workflow_version: '1.0.0',
    mode: 'cloud',
    status: 'completed',
    definition: { workflow: { name: 'w', steps: [] }, library: [] },
    inputs: {},
    trigger: { type: 'api' },
    callback_url: null,
    created_at: '2026-03-01T10:00:00.000Z',
    started_at: null,
    finished_at: null,
    canceled_at: null,
    result: { outputs: {}, steps: {} },
    error: null,
    callback: null,
    ...extra,
  };
  await store.executions.create(record);
  return record;
}

const ids = async (url: string, key?: string) =>
  (await get(url, key))
    .json<{ executions: { execution_id: string }[] }>()
    .executions.map((e) => e.execution_id);

describe('GET /workflows/executions filters', () => {
  it('narrows by trigger and by a time range of creation, in any time zone offset', async () => {
    const a = await stored({
      created_at: '2026-03-01T09:00:00.000Z',
      trigger: { type: 'schedule' },
    });
    const b = await stored({ created_at: '2026-03-01T10:30:00.000Z' });
    const c = await stored({
      created_at: '2026-03-01T12:00:00.000Z',
      trigger: { type: 'schedule' },
    });
    expect(await ids('/workflows/executions?trigger=schedule')).toEqual([c.id, a.id]);
    expect(await ids('/workflows/executions?trigger=api')).toEqual([b.id]);
    // 11:30+01:00 is 10:30Z: from is inclusive, to exclusive.
    expect(
      await ids(
        `/workflows/executions?from=${encodeURIComponent('2026-03-01T11:30:00+01:00')}&to=2026-03-01T12:00:00Z`,
      ),
    ).toEqual([b.id]);
    expect(await ids('/workflows/executions?trigger=schedule&from=2026-03-01T10:00:00Z')).toEqual([
      c.id,
    ]);
  });

  it('refuses a trigger or time it does not know with the error object naming the field', async () => {
    for (const [query, field] of [
      ['trigger=cron', 'trigger'],
      ['from=yesterday', 'from'],
      ['to=2026-13-01T00:00:00Z', 'to'],
    ] as const) {
      const answer = await get(`/workflows/executions?${query}`);
      expect(answer.statusCode, query).toBe(400);
      expect(answer.json(), query).toMatchObject({
        status: 'error',
        code: 'VALIDATION',
        details: { field: expect.stringContaining(field) },
      });
    }
  });
});

describe('GET /stats/executions', () => {
  it("counts the caller's executions per hour and status, and duration percentiles", async () => {
    await stored({
      created_at: '2026-03-01T10:00:00.000Z',
      started_at: '2026-03-01T10:00:01.000Z',
      finished_at: '2026-03-01T10:00:03.000Z',
    });
    await stored({ created_at: '2026-03-01T10:10:00.000Z', status: 'failed' });
    await stored({ created_at: '2026-03-01T11:10:00.000Z', owner: 'bob' });
    const answer = await get(
      '/stats/executions?since=2026-03-01T00:00:00Z&until=2026-03-02T00:00:00Z',
    );
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({
      since: '2026-03-01T00:00:00.000Z',
      until: '2026-03-02T00:00:00.000Z',
      hours: [
        { hour: '2026-03-01T10', status: 'completed', count: 1 },
        { hour: '2026-03-01T10', status: 'failed', count: 1 },
      ],
      workflows: [{ workflow: 'w', count: 1, p50_ms: 2000, p95_ms: 2000 }],
    });
    const bobs = (
      await get('/stats/executions?since=2026-03-01T00:00:00Z&until=2026-03-02T00:00:00Z', KEYS.bob)
    ).json();
    expect(bobs.hours).toEqual([{ hour: '2026-03-01T11', status: 'completed', count: 1 }]);
  });

  it('defaults to the last 24 h, and refuses a range that is backwards or too long', async () => {
    const now = (await get('/stats/executions')).json<{ since: string; until: string }>();
    expect(Date.parse(now.until) - Date.parse(now.since)).toBe(86_400_000);
    for (const query of [
      'since=2026-03-02T00:00:00Z&until=2026-03-01T00:00:00Z',
      'since=2026-01-01T00:00:00Z&until=2026-03-01T00:00:00Z',
    ]) {
      const answer = await get(`/stats/executions?${query}`);
      expect(answer.statusCode).toBe(400);
      expect(answer.json()).toMatchObject({
        code: 'VALIDATION',
        details: { field: 'since', constraint: 'range' },
      });
    }
    expect((await get('/stats/executions?since=soon')).statusCode).toBe(400);
    expect((await get('/stats/executions', 'Bearer nope')).statusCode).toBe(401);
  });
});
