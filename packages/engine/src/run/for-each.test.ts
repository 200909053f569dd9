import { describe, expect, it } from 'vitest';
import { TestInvoker } from '../test-support/invoker.js';
import { load } from '../test-support/load.js';
import { DEFAULT_MAX_FOR_EACH_ITEMS } from './options.js';
import { runWorkflow } from './run-workflow.js';

function workflow(yaml: string) {
  const result = load(yaml);
  if (!result.ok) throw new Error(result.diagnostics.map((d) => d.message).join('\n'));
  return result.workflows[0]!;
}

const EACH = (parallel: boolean) =>
  workflow(`workflows:
  - name: w
    inputs: { items: { type: array } }
    steps:
      - { name: each, plugin: p, action: x, for_each: '{{ inputs.items }}', parallel: ${parallel}, input: { n: '{{ item }}' } }
`);

describe('for_each bounds', () => {
  it.each([false, true])(
    'fails the step with VALIDATION naming the limit before any item runs (parallel: %s)',
    async (parallel) => {
      const invoker = new TestInvoker({ 'p.x': (input) => input['n'] });
      const items = new Array(DEFAULT_MAX_FOR_EACH_ITEMS + 1).fill(0);
      const result = await runWorkflow(EACH(parallel), { items }, { invoker });
      expect(invoker.calls).toHaveLength(0);
      expect(result.status).toBe('failed');
      expect(result.error).toMatchObject({
        code: 'VALIDATION',
        details: {
          field: 'steps.each.for_each',
          constraint: 'max_items',
          limit: 100_000,
          actual: 100_001,
        },
      });
      expect(result.error!.message).toContain('over the limit of 100000');
    },
  );

  it('takes a lower or higher limit from maxForEachItems', async () => {
    const invoker = new TestInvoker({ 'p.x': (input) => input['n'] });
    const refused = await runWorkflow(
      EACH(false),
      { items: [1, 2, 3] },
      { invoker, maxForEachItems: 2 },
    );
    expect(refused.error).toMatchObject({ details: { limit: 2, actual: 3 } });
    const items = new Array(DEFAULT_MAX_FOR_EACH_ITEMS + 1).fill(1);
    const ran = await runWorkflow(
      EACH(true),
      { items },
      { invoker, maxForEachItems: DEFAULT_MAX_FOR_EACH_ITEMS + 1 },
    );
    expect(ran.status).toBe('completed');
    expect(invoker.calls).toHaveLength(DEFAULT_MAX_FOR_EACH_ITEMS + 1);
  });

  it('refuses a maxForEachItems that is not a positive integer', async () => {
    const invoker = new TestInvoker({});
    await expect(async () =>
      runWorkflow(EACH(false), { items: [] }, { invoker, maxForEachItems: 0 }),
    ).rejects.toMatchObject({ code: 'VALIDATION', details: { field: 'maxForEachItems' } });
  });

  it.each([false, true])(
    'sees a cancellation while every item settles at once (parallel: %s)',
    async (parallel) => {
      const controller = new AbortController();
      let calls = 0;
      const invoker = new TestInvoker({
        'p.x': (input) => {
          // Canceled from a macrotask: a loop that never gives the event loop a turn would run
          // every item before it is seen.
          if (++calls === 10) setImmediate(() => controller.abort());
          return input['n'];
        },
      });
      const items = new Array(DEFAULT_MAX_FOR_EACH_ITEMS).fill(1);
      const result = await runWorkflow(
        EACH(parallel),
        { items },
        { invoker, signal: controller.signal },
      );
      expect(result.status).toBe('canceled');
      // Seen within a turn of the event loop: a few hundred items, and the window in flight.
      expect(calls).toBeLessThan(5_000);
    },
  );
});

describe('for_each on a transform step', () => {
  it.each([false, true])(
    'evaluates the input once per item with item bound, outputs in item order (parallel: %s)',
    async (parallel) => {
      const wf = workflow(`workflows:
  - name: w
    inputs: { items: { type: array } }
    steps:
      - name: shape
        type: transform
        for_each: '{{ inputs.items }}'
        parallel: ${parallel}
        input: { id: '{{ item.id }}', label: 'item {{ item.id }}' }
    outputs: { all: { value: '{{ steps.shape.output }}' } }
`);
      const result = await runWorkflow(
        wf,
        { items: [{ id: 1 }, { id: 2 }] },
        { invoker: new TestInvoker({}) },
      );
      expect(result.status).toBe('completed');
      expect(result.outputs['all']).toEqual([
        { id: 1, label: 'item 1' },
        { id: 2, label: 'item 2' },
      ]);
      expect(result.steps['shape']!.input).toEqual([
        { id: 1, label: 'item 1' },
        { id: 2, label: 'item 2' },
      ]);
    },
  );

  it('bounds a transform for_each like an action one', async () => {
    const wf = workflow(`workflows:
  - name: w
    inputs: { items: { type: array } }
    steps:
      - { name: shape, type: transform, for_each: '{{ inputs.items }}', input: { v: '{{ item }}' } }
`);
    const result = await runWorkflow(
      wf,
      { items: [1, 2, 3] },
      { invoker: new TestInvoker({}), maxForEachItems: 2 },
    );
    expect(result.error).toMatchObject({
      code: 'VALIDATION',
      details: { constraint: 'max_items' },
    });
  });
});

describe('for_each on a subworkflow step', () => {
  it('is refused by validation: the call runs once, so item would be unbound', () => {
    const result = load(`workflows:
  - name: inner
    steps: [{ name: t, type: transform, input: { v: 1 } }]
  - name: w
    steps:
      - { name: call, workflow: inner, for_each: [1, 2], input: { v: '{{ item }}' } }
`);
    expect(result.ok).toBe(false);
    expect(result.diagnostics.map((d) => d.message)).toContain(
      '"for_each" does not belong on a workflow step',
    );
  });
});

describe('retries of a parallel for_each', () => {
  it('wait their delays on the run, not on one listener each of the caller signal; a cancellation ends them', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    const controller = new AbortController();
    const items = Array.from({ length: 24 }, (_, i) => i);
    let failed = 0;
    const invoker = new TestInvoker({
      'p.x': () => {
        // Every item fails its first attempt; once all wait out their delay, the run is canceled.
        if (++failed === items.length) setImmediate(() => controller.abort(new Error('stop')));
        throw new Error('try again');
      },
    });
    const wf = workflow(`workflows:
  - name: w
    inputs: { items: { type: array } }
    steps:
      - name: each
        plugin: p
        action: x
        for_each: '{{ inputs.items }}'
        parallel: true
        input: { n: '{{ item }}' }
        retry: { max_attempts: 2, backoff: fixed, backoff_factor: 600 }
`);
    try {
      // A delay the cancellation did not end would hold this test for ten minutes.
      const result = await runWorkflow(wf, { items }, { invoker, signal: controller.signal });
      expect(result.status).toBe('canceled');
      expect(result.steps['each']).toMatchObject({ status: 'canceled', attempts: items.length });
    } finally {
      process.off('warning', onWarning);
    }
    expect(invoker.calls).toHaveLength(items.length);
    expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
  });
});
