import type { StreamEvent } from '@weft/core';
import { describe, expect, it } from 'vitest';
import { TestInvoker } from '../test-support/invoker.js';
import { load } from '../test-support/load.js';
import type { JournaledStep } from './records.js';
import { runWorkflow } from './run-workflow.js';

function workflow(yaml: string) {
  const result = load(yaml);
  if (!result.ok) throw new Error(result.diagnostics.map((d) => d.message).join('\n'));
  return result.workflows[0]!;
}

const CHAIN = workflow(`workflows:
  - name: w
    inputs: { n: { type: number } }
    steps:
      - { name: a, plugin: math, action: double, input: { v: '{{ inputs.n }}' } }
      - { name: b, plugin: math, action: double, input: { v: '{{ steps.a.output.v }}' } }
      - { name: c, plugin: math, action: double, input: { v: '{{ steps.b.output.v }}' } }
    outputs:
      result: { value: '{{ steps.c.output.v }}' }
`);

function doubler() {
  return new TestInvoker({ 'math.double': (input) => ({ v: (input['v'] as number) * 2 }) });
}

describe('the durability hook', () => {
  it('reports every finished step, in order, with what a resumed run needs', async () => {
    const journal: JournaledStep[] = [];
    const result = await runWorkflow(
      CHAIN,
      { n: 1 },
      { invoker: doubler(), onStepFinished: (step) => void journal.push(structuredClone(step)) },
    );
    expect(result.outputs).toEqual({ result: 8 });
    expect(journal.map((s) => s.path)).toEqual(['a', 'b', 'c']);
    expect(journal[1]).toMatchObject({
      path: 'b',
      entry: { status: 'success', output: { v: 4 } },
      attempts: 1,
    });
    expect(journal[1]!.finished_ms).toBeGreaterThanOrEqual(journal[1]!.started_ms);
  });

  it('never runs a journaled step again and feeds its output to later templates', async () => {
    const first: JournaledStep[] = [];
    await runWorkflow(
      CHAIN,
      { n: 1 },
      { invoker: doubler(), onStepFinished: (step) => void first.push(structuredClone(step)) },
    );
    const invoker = doubler();
    const events: StreamEvent[] = [];
    const reported: string[] = [];
    const result = await runWorkflow(
      CHAIN,
      { n: 1 },
      {
        invoker,
        journal: first.slice(0, 2),
        onEvent: (e) => events.push(e),
        onStepFinished: (step) => void reported.push(step.path),
      },
    );
    expect(invoker.calls.map((c) => c.input)).toEqual([{ v: 4 }]);
    expect(reported).toEqual(['c']);
    expect(result.status).toBe('completed');
    expect(result.outputs).toEqual({ result: 8 });
    expect(Object.keys(result.steps)).toEqual(['a', 'b', 'c']);
    expect(result.steps['a']).toMatchObject({ status: 'success', output: { v: 2 }, attempts: 1 });
    expect(events.filter((e) => e.type !== 'workflow.completed').map((e) => e.step_name)).toEqual([
      'c',
      'c',
    ]);
  });

  it('waits for a returned promise before the next step starts', async () => {
    const order: string[] = [];
    const invoker = new TestInvoker({
      'math.double': (input) => {
        order.push(`run ${String(input['v'])}`);
        return { v: (input['v'] as number) * 2 };
      },
    });
    await runWorkflow(
      CHAIN,
      { n: 1 },
      {
        invoker,
        onStepFinished: async (step) => {
          await new Promise((resolve) => setTimeout(resolve, 5));
          order.push(`journaled ${step.path}`);
        },
      },
    );
    expect(order).toEqual(['run 1', 'journaled a', 'run 2', 'journaled b', 'run 4', 'journaled c']);
  });

  it('with journalWithEnd, ends without waiting for the last step, never before the others', async () => {
    const order: string[] = [];
    const invoker = new TestInvoker({
      'math.double': (input) => {
        order.push(`run ${String(input['v'])}`);
        return { v: (input['v'] as number) * 2 };
      },
    });
    const writes: Array<() => void> = [];
    const running = runWorkflow(
      CHAIN,
      { n: 1 },
      {
        invoker,
        journalWithEnd: true,
        onStepFinished: (step) =>
          new Promise<void>((resolve) =>
            writes.push(() => {
              order.push(`journaled ${step.path}`);
              resolve();
            }),
          ),
      },
    );
    // Each write is let through only after the engine had a chance to run ahead of it.
    for (let i = 0; i < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      writes.shift()!();
    }
    const result = await running;
    expect(result).toMatchObject({ status: 'completed', outputs: { result: 8 } });
    expect(order).toEqual(['run 1', 'journaled a', 'run 2', 'journaled b', 'run 4']);
    expect(writes).toHaveLength(1);
  });

  it('fails the run when journaling fails, without running the next step', async () => {
    const invoker = doubler();
    const result = await runWorkflow(
      CHAIN,
      { n: 1 },
      {
        invoker,
        onStepFinished: () => Promise.reject(new Error('disk full')),
      },
    );
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ code: 'INTERNAL_ERROR' });
    expect(invoker.calls).toHaveLength(1);
  });

  it('resumes a parallel block: finished children are kept, the others run', async () => {
    const wf = workflow(`workflows:
  - name: w
    steps:
      - name: block
        parallel:
          - { name: x, plugin: p, action: echo, input: { v: 1 } }
          - { name: y, plugin: p, action: echo, input: { v: 2 } }
      - { name: after, type: transform, input: { s: '{{ steps.block.output.x.v + steps.block.output.y.v }}' } }
`);
    const journal: JournaledStep[] = [];
    await runWorkflow(
      wf,
      {},
      {
        invoker: new TestInvoker({ 'p.echo': (input) => input }),
        onStepFinished: (step) => void journal.push(structuredClone(step)),
      },
    );
    expect(journal.map((s) => s.path)).toEqual(['block/x', 'block/y', 'block', 'after']);
    const invoker = new TestInvoker({ 'p.echo': (input) => input });
    const result = await runWorkflow(
      wf,
      {},
      {
        invoker,
        journal: journal.filter((s) => s.path === 'block/x'),
      },
    );
    expect(invoker.calls.map((c) => c.input)).toEqual([{ v: 2 }]);
    expect(result.steps['after']!.output).toEqual({ s: 3 });
    expect(Object.keys(result.steps).sort()).toEqual(['after', 'block', 'x', 'y']);

    const whole = new TestInvoker({ 'p.echo': (input) => input });
    const again = await runWorkflow(
      wf,
      {},
      {
        invoker: whole,
        journal: journal.filter((s) => s.path.startsWith('block')),
      },
    );
    expect(whole.calls).toHaveLength(0);
    expect(again.steps['y']).toMatchObject({ status: 'success', output: { v: 2 } });
  });

  it('journals a subworkflow step as one step, not the steps inside it', async () => {
    const file = load(`workflows:
  - name: outer
    steps:
      - { name: call, workflow: inner }
  - name: inner
    steps:
      - { name: i1, plugin: p, action: echo, input: { v: 1 } }
    outputs: { v: { value: '{{ steps.i1.output.v }}' } }
`);
    if (!file.ok) throw new Error('load failed');
    const [outer, inner] = file.workflows;
    const paths: string[] = [];
    const result = await runWorkflow(
      outer!,
      {},
      {
        invoker: new TestInvoker({ 'p.echo': (input) => input }),
        resolveWorkflow: (name) => (name === 'inner' ? inner : undefined),
        onStepFinished: (step) => void paths.push(step.path),
      },
    );
    expect(result.status).toBe('completed');
    expect(paths).toEqual(['call']);
  });
});
