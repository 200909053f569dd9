import { afterEach, describe, expect, it } from 'vitest';
import { openTestExecutionsStore, type TestExecutionsStore } from '@weft/store';
import {
  buildRuntimeHarness,
  KEYS,
  testActions,
  workflowText,
  type RuntimeHarness,
} from '../test-support/harness.js';

let store: TestExecutionsStore | undefined;
let harness: RuntimeHarness | undefined;

afterEach(async () => {
  await harness?.close();
  await store?.dispose();
});

describe("an execution's usage", () => {
  it('counts every action call: each attempt and each for_each item, no transform', async () => {
    store = await openTestExecutionsStore('sqlite');
    let flaky = 0;
    harness = await buildRuntimeHarness(
      store.executions,
      testActions({
        'p.flaky': () => {
          if (++flaky === 1) throw new Error('first attempt fails');
          return { ok: true };
        },
        'p.each': (input) => input,
      }),
    );
    const workflow =
      workflowText(`      - { name: a, plugin: p, action: flaky, retry: { max_attempts: 2, backoff_factor: 0.01 } }
      - { name: b, plugin: p, action: each, for_each: [1, 2, 3], input: { v: '{{ item }}' } }
      - { name: c, type: transform, input: { n: '{{ steps.b.output | length }}' } }
`);
    const id = (
      await harness.app.inject({
        method: 'POST',
        url: '/workflows/executions',
        headers: { authorization: KEYS.alice },
        payload: { workflow },
      })
    ).json<{ execution_id: string }>().execution_id;
    const record = await harness.runtime.waitFor(id, 'alice', 5000);
    expect(record.status).toBe('completed');
    const rows = await store.executions.usage('alice', '2000-01-01');
    expect(rows).toEqual([
      expect.objectContaining({ key_id: 'ka', executions: 1, action_calls: 5 }),
    ]);
  });
});
