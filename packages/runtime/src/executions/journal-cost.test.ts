import { afterEach, describe, expect, it } from 'vitest';
import { openTestExecutionsStore, type TestExecutionsStore } from '@weft/store';
import {
  buildRuntimeHarness,
  KEYS,
  testActions,
  workflowText,
  type RuntimeHarness,
} from '../test-support/harness.js';
import { journaledCostUsd } from './journal-cost.js';

let store: TestExecutionsStore | undefined;
let harness: RuntimeHarness | undefined;

afterEach(async () => {
  await harness?.close();
  await store?.dispose();
});

const step = (path: string, usage?: Record<string, number>) => ({
  path,
  json: JSON.stringify({
    path,
    entry: { status: 'success', output: null },
    attempts: 1,
    started_ms: 1,
    finished_ms: 2,
    ...(usage ? { usage } : {}),
  }),
});

describe('journaledCostUsd', () => {
  it("sums the cost of an execution's journaled steps, as another replica reads them", async () => {
    store = await openTestExecutionsStore('sqlite');
    harness = await buildRuntimeHarness(store.executions, testActions({}));
    const id = (
      await harness.app.inject({
        method: 'POST',
        url: '/workflows/executions',
        headers: { authorization: KEYS.alice },
        payload: {
          workflow: workflowText('      - { name: a, type: transform, input: { x: 1 } }\n'),
        },
      })
    ).json<{ execution_id: string }>().execution_id;
    const done = await harness.runtime.waitFor(id, 'alice', 5000);
    expect(done.status).toBe('completed');
    expect(await journaledCostUsd(store.executions, id)).toBe(0);
    const stored = (await store.executions.get(id))!;
    const copy = { ...stored, id: `${id}-taken-over`, status: 'pending' as const };
    await store.executions.create(copy);
    await store.executions.claim(copy.id, 'gone', 0, 1, new Date().toISOString());
    await store.executions.journal(
      copy.id,
      [
        step('ask', { input_tokens: 100, output_tokens: 50, cost_usd: 0.25 }),
        step('tools', { tool_calls: 2 }),
        step('sub', { cost_usd: 0.125 }),
        step('plain'),
      ],
      [],
    );
    expect(await journaledCostUsd(store.executions, copy.id)).toBe(0.375);
  });
});
