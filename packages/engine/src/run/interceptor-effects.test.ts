import { TimeoutError, ValidationError, type InvocationUsage } from '@weft/core';
import { describe, expect, it } from 'vitest';
import { ManualClock, TestInvoker, withUsage } from '../test-support/invoker.js';
import { load } from '../test-support/load.js';
import type { RunInterceptor, StepCall, TargetCheck } from './interceptors.js';
import type { JournaledStep } from './records.js';
import { runWorkflow } from './run-workflow.js';

function workflow(yaml: string) {
  const result = load(yaml);
  if (!result.ok) throw new Error(result.diagnostics.map((d) => d.message).join('\n'));
  return result.workflows[0]!;
}

describe('usage reported by invocations', () => {
  it('reaches the invocation hooks, the step hooks, the step record and the journal', async () => {
    const wf = workflow(`workflows:
  - name: w
    steps:
      - { name: a, plugin: llm, action: ask, for_each: [1, 2], input: { q: '{{ item }}' } }
      - { name: b, plugin: p, action: plain }
`);
    const invoker = new TestInvoker({
      'llm.ask': (input) =>
        withUsage(`answer ${input['q']}`, {
          input_tokens: 10,
          output_tokens: 5,
          cost_usd: 0.25,
          tool_calls: 1,
        }),
      'p.plain': () => 'plain',
    });
    const perCall: (InvocationUsage | undefined)[] = [];
    const perStep: Record<string, InvocationUsage | undefined> = {};
    const budget: RunInterceptor = {
      step: async (call, next) => {
        const outcome = await next();
        perStep[call.step.path] = call.usage;
        return outcome;
      },
      invoke: async (call, next) => {
        const result = await next(call);
        perCall.push(result.usage);
        return result;
      },
    };
    const journaled: JournaledStep[] = [];
    const result = await runWorkflow(
      wf,
      {},
      { invoker, interceptors: [budget], onStepFinished: (s) => void journaled.push(s) },
    );
    const sum = { input_tokens: 20, output_tokens: 10, cost_usd: 0.5, tool_calls: 2 };
    expect(result.steps['a']).toMatchObject({ output: ['answer 1', 'answer 2'], usage: sum });
    expect(perCall).toEqual([
      { input_tokens: 10, output_tokens: 5, cost_usd: 0.25, tool_calls: 1 },
      { input_tokens: 10, output_tokens: 5, cost_usd: 0.25, tool_calls: 1 },
      undefined,
    ]);
    expect(perStep).toEqual({ a: sum, b: undefined });
    expect(result.steps['b']).not.toHaveProperty('usage');
    expect(journaled[0]!.usage).toEqual(sum);
    expect(journaled[1]).not.toHaveProperty('usage');
  });

  it('sums the usage of a subworkflow into its step, and keeps a journaled step’s', async () => {
    const file = load(`workflows:
  - name: parent
    steps:
      - { name: before, plugin: llm, action: ask }
      - { name: call, type: workflow, workflow: child }
  - name: child
    steps:
      - { name: one, plugin: llm, action: ask }
      - { name: two, plugin: llm, action: ask }
`);
    const [parent, child] = file.workflows;
    const invoker = new TestInvoker({ 'llm.ask': () => withUsage('ok', { total_tokens: 7 }) });
    const journal: JournaledStep[] = [
      {
        path: 'before',
        entry: { status: 'success', output: 'old' },
        attempts: 1,
        started_ms: 0,
        finished_ms: 1,
        usage: { total_tokens: 100 },
      },
    ];
    const result = await runWorkflow(
      parent!,
      {},
      { invoker, journal, resolveWorkflow: () => child },
    );
    expect(result.steps['before']!.usage).toEqual({ total_tokens: 100 });
    expect(result.steps['call']!.usage).toEqual({ total_tokens: 14 });
  });
});

describe('aborting a step from a step hook', () => {
  /** Ends every step but transforms with TIMEOUT once `started` resolves. */
  const timeLimit = (started: Promise<void>): RunInterceptor => ({
    step: (call, next) => {
      if (call.step.kind === 'transform') return next();
      void started.then(() =>
        call.abort(
          new TimeoutError(`step "${call.step.path}" went over its time limit`, {
            timeout_ms: 5,
            elapsed_ms: 5,
          }),
        ),
      );
      return next();
    },
  });

  it('aborts the in-flight attempt, starts no retry and fails the step with the reason', async () => {
    const wf = workflow(`workflows:
  - name: w
    steps:
      - { name: a, plugin: p, action: hang, retry: { max_attempts: 3 }, continue_on_error: true }
      - { name: b, type: transform, input: { code: '{{ steps.a.error.code }}' } }
`);
    let signalled: unknown;
    let begin!: () => void;
    const started = new Promise<void>((resolve) => (begin = resolve));
    const invoker = new TestInvoker({
      'p.hang': (_input, context) =>
        new Promise(() => {
          context.signal.addEventListener('abort', () => (signalled = context.signal.reason));
          begin();
        }),
    });
    const clock = new ManualClock(0);
    const result = await runWorkflow(
      wf,
      {},
      { invoker, clock, interceptors: [timeLimit(started)] },
    );
    expect(result.steps['a']).toMatchObject({
      status: 'failed',
      attempts: 1,
      error: { code: 'TIMEOUT', message: 'step "a" went over its time limit' },
    });
    expect(signalled).toBeInstanceOf(TimeoutError);
    expect(invoker.calls).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
    expect(result.steps['b']!.output).toEqual({ code: 'TIMEOUT' });
  });

  it('aborts the children of a parallel block with it', async () => {
    const wf = workflow(`workflows:
  - name: w
    steps:
      - name: block
        parallel:
          - { name: one, plugin: p, action: hang }
          - { name: two, plugin: p, action: hang }
`);
    let begin!: () => void;
    const started = new Promise<void>((resolve) => (begin = resolve));
    let running = 0;
    const invoker = new TestInvoker({
      'p.hang': () =>
        new Promise(() => {
          if (++running === 2) begin();
        }),
    });
    const blockOnly: RunInterceptor = {
      step: (call, next) =>
        call.step.kind === 'parallel' ? timeLimit(started).step!(call, next) : next(),
    };
    const result = await runWorkflow(wf, {}, { invoker, interceptors: [blockOnly] });
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({
      code: 'TIMEOUT',
      message: expect.stringContaining('block'),
    });
    expect(result.steps['one']).toMatchObject({ status: 'failed', error: { code: 'TIMEOUT' } });
    expect(result.steps['two']).toMatchObject({ status: 'failed', error: { code: 'TIMEOUT' } });
  });

  it('cancels the subworkflow a step runs', async () => {
    const file = load(`workflows:
  - name: parent
    steps:
      - { name: call, type: workflow, workflow: child }
  - name: child
    steps:
      - { name: inner, plugin: p, action: hang }
`);
    const [parent, child] = file.workflows;
    let begin!: () => void;
    const started = new Promise<void>((resolve) => (begin = resolve));
    const invoker = new TestInvoker({ 'p.hang': () => new Promise(() => begin()) });
    const outerOnly: RunInterceptor = {
      step: (call, next) => (call.run.depth === 0 ? timeLimit(started).step!(call, next) : next()),
    };
    const result = await runWorkflow(
      parent!,
      {},
      { invoker, resolveWorkflow: () => child, interceptors: [outerOnly] },
    );
    expect(result.steps['call']).toMatchObject({
      status: 'failed',
      error: { code: 'TIMEOUT', message: 'step "call" went over its time limit' },
    });
  });

  it('intercepts a parallel block and each of its children, the block outside', async () => {
    const wf = workflow(`workflows:
  - name: w
    steps:
      - name: block
        parallel:
          - { name: one, type: transform, input: { v: 1 } }
          - { name: two, type: transform, input: { v: 2 } }
      - { name: after, type: transform, input: { v: '{{ steps.block.two.output.v }}' } }
`);
    const seen: string[] = [];
    const watch: RunInterceptor = {
      step: async (call: StepCall, next) => {
        seen.push(`${call.step.path} (in ${call.step.parent?.path ?? '-'})`);
        return next();
      },
    };
    const result = await runWorkflow(
      wf,
      {},
      { invoker: new TestInvoker({}), interceptors: [watch] },
    );
    expect(seen).toEqual([
      'block (in -)',
      'block/one (in block)',
      'block/two (in block)',
      'after (in -)',
    ]);
    expect(result.steps['after']!.output).toEqual({ v: 2 });
  });
});

describe('checks before the run', () => {
  it('go through the check hooks to the invoker, which a hook may skip or refuse', async () => {
    const wf = workflow(`workflows:
  - name: w
    steps:
      - { name: a, plugin: known, action: x }
      - { name: b, plugin: stubbed, action: y }
`);
    const checked: string[] = [];
    const invoker = new TestInvoker({ 'known.x': () => 1, 'stubbed.y': () => 2 });
    Object.assign(invoker, {
      check: (target: TargetCheck['target'], action: string) => {
        checked.push(`${target.kind === 'plugin' ? target.slug : target.ref}.${action}`);
      },
    });
    const skipStubbed: RunInterceptor = {
      check: (check, next) => {
        if (check.target.kind === 'plugin' && check.target.slug === 'stubbed') return;
        next(check);
      },
    };
    const ok = await runWorkflow(wf, {}, { invoker, interceptors: [skipStubbed] });
    expect(ok.status).toBe('completed');
    expect(checked).toEqual(['known.x']);
    const refuse: RunInterceptor = {
      check: (check) => {
        throw new ValidationError(`${check.step.path} is not allowed here`, {
          field: `steps.${check.step.path}`,
          constraint: 'allowed',
        });
      },
    };
    const refused = await runWorkflow(wf, {}, { invoker, interceptors: [refuse] });
    expect(refused.error).toMatchObject({ code: 'VALIDATION', message: 'a is not allowed here' });
    expect(refused.steps).toEqual({});
    expect(invoker.calls).toHaveLength(2);
  });
});
