import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestExecutionsStore, type TestExecutions } from '@weft/store';
import {
  buildRuntimeHarness,
  KEYS,
  testActions,
  type RuntimeHarness,
} from '../test-support/harness.js';

const FLOW = `workflows:
  - name: shapes
    inputs: { list: { type: array, default: [1, 2] } }
    steps:
      - { id: first, type: transform, input: { v: 1 } }
      - name: fan
        parallel:
          - { name: left, type: transform, input: { v: 1 } }
          - { name: right, type: transform, input: { v: 2 }, condition: '{{ true }}' }
      - { name: each, type: transform, for_each: '{{ inputs.list }}', input: { v: '{{ item }}' }, continue_on_error: true }
`;

describe('GET /workflows/executions/{id}/definition', () => {
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

  it('gives the workflow a run of an inline workflow runs, to its owner only', async () => {
    const started = await h.app.inject({
      method: 'POST',
      url: '/workflows/executions',
      headers: { authorization: KEYS.alice },
      payload: { workflow: FLOW },
    });
    expect(started.statusCode, started.body).toBe(202);
    const id = started.json<{ execution_id: string }>().execution_id;

    const answer = await h.app.inject({
      url: `/workflows/executions/${id}/definition`,
      headers: { authorization: KEYS.alice },
    });
    expect(answer.statusCode, answer.body).toBe(200);
    const { workflow } = answer.json<{ workflow: { name: string; steps: object[] } }>();
    expect(workflow.name).toBe('shapes');
    expect(workflow.steps).toMatchObject([
      { name: 'first', type: 'transform' },
      {
        name: 'fan',
        type: 'parallel',
        parallel: [{ name: 'left' }, { name: 'right', condition: '{{ true }}' }],
      },
      { name: 'each', for_each: '{{ inputs.list }}', continue_on_error: true },
    ]);

    const other = await h.app.inject({
      url: `/workflows/executions/${id}/definition`,
      headers: { authorization: KEYS.bob },
    });
    expect(other.statusCode).toBe(404);
    expect(other.json()).toMatchObject({ code: 'NOT_FOUND' });
    const anonymous = await h.app.inject({ url: `/workflows/executions/${id}/definition` });
    expect(anonymous.statusCode).toBe(401);
  });
});
