import { ForbiddenError, ValidationError, type Principal } from '@weft/core';
import { describe, expect, it } from 'vitest';
import { ManualClock, TestInvoker } from '../test-support/invoker.js';
import { load } from '../test-support/load.js';
import type { Invocation, RunInterceptor, StepCall } from './interceptors.js';
import type { JournaledStep } from './records.js';
import { runWorkflow } from './run-workflow.js';

function workflow(yaml: string) {
  const result = load(yaml);
  if (!result.ok) throw new Error(result.diagnostics.map((d) => d.message).join('\n'));
  return result.workflows[0]!;
}

const twoSteps = workflow(`workflows:
  - name: w
    steps:
      - { name: a, plugin: p, action: x }
      - { name: b, plugin: p, action: y, input: { from: '{{ steps.a.output }}' } }
`);

/** An interceptor that logs `<name> <hook> <path>` on the way in and out. */
function logger(name: string, log: string[]): RunInterceptor {
  return {
    name,
    step: async (call, next) => {
      log.push(`${name} step ${call.step.path}`);
      try {
        return await next();
      } finally {
        log.push(`${name} step ${call.step.path} done`);
      }
    },
    invoke: async (call, next) => {
      log.push(`${name} invoke ${call.step.path}#${call.attempt}`);
      const result = await next(call);
      log.push(`${name} invoke ${call.step.path}#${call.attempt} done`);
      return result;
    },
  };
}

describe('the interceptor chain', () => {
  it('calls the hooks outer-first around each step and each invocation', async () => {
    const log: string[] = [];
    const invoker = new TestInvoker({
      'p.x': () => log.push('handler a'),
      'p.y': () => log.push('handler b'),
    });
    const interceptors = [logger('outer', log), logger('inner', log)];
    const result = await runWorkflow(twoSteps, {}, { invoker, interceptors });
    expect(result.status).toBe('completed');
    expect(log.slice(0, 9)).toEqual([
      'outer step a',
      'inner step a',
      'outer invoke a#1',
      'inner invoke a#1',
      'handler a',
      'inner invoke a#1 done',
      'outer invoke a#1 done',
      'inner step a done',
      'outer step a done',
    ]);
    expect(log.slice(9)).toHaveLength(9);
  });

  it('lets a step hook answer the step without running it', async () => {
    const invoker = new TestInvoker({ 'p.x': () => 'real', 'p.y': (input) => input['from'] });
    const cache: RunInterceptor = {
      step: (call, next) =>
        call.step.path === 'a' ? Promise.resolve({ output: 'cached' }) : next(),
    };
    const result = await runWorkflow(twoSteps, {}, { invoker, interceptors: [cache] });
    expect(result.steps['a']).toMatchObject({ status: 'success', output: 'cached', attempts: 0 });
    expect(result.steps['b']!.output).toBe('cached');
    expect(invoker.calls.map((c) => c.action)).toEqual(['y']);
  });

  it('fails a step a step hook refuses, without running it; continue_on_error applies', async () => {
    const wf = workflow(`workflows:
  - name: w
    steps:
      - { name: a, plugin: p, action: x, continue_on_error: true }
      - { name: b, type: transform, input: { code: '{{ steps.a.error.code }}' } }
      - { name: c, plugin: p, action: x }
      - { name: d, type: transform, input: { x: 1 } }
`);
    const invoker = new TestInvoker({ 'p.x': () => 'ran' });
    const forbid: RunInterceptor = {
      step: (call, next) => {
        if (call.step.kind !== 'action') return next();
        throw new ForbiddenError(`step ${call.step.path} needs workflows:run`, {});
      },
    };
    const result = await runWorkflow(wf, {}, { invoker, interceptors: [forbid] });
    expect(invoker.calls).toHaveLength(0);
    expect(result.steps['a']).toMatchObject({ status: 'failed', error: { code: 'FORBIDDEN' } });
    expect(result.steps['b']!.output).toEqual({ code: 'FORBIDDEN' });
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({
      code: 'FORBIDDEN',
      message: 'step c needs workflows:run',
    });
    expect(result.steps['d']).toBeUndefined();
  });

  it('fails a step whose output a step hook rejects, with the hook error', async () => {
    const wf = workflow(`workflows:
  - name: w
    steps:
      - { name: t, type: transform, input: { text: 'call me at 555-0100' }, continue_on_error: true }
`);
    const guardrail: RunInterceptor = {
      step: async (_call, next) => {
        const outcome = await next();
        if (JSON.stringify(outcome.output).includes('555'))
          throw new ValidationError('the output carries a phone number', {
            field: 'guardrails.pii',
            constraint: 'guardrail',
          });
        return outcome;
      },
    };
    const result = await runWorkflow(
      wf,
      {},
      { invoker: new TestInvoker({}), interceptors: [guardrail] },
    );
    expect(result.status).toBe('completed');
    expect(result.steps['t']).toMatchObject({
      status: 'failed',
      output: null,
      error: { code: 'VALIDATION', details: { field: 'guardrails.pii' } },
    });
  });

  it('fails an attempt with the error an invocation hook throws, and retries it', async () => {
    const wf = workflow(`workflows:
  - name: w
    steps:
      - { name: a, plugin: p, action: x, retry: { max_attempts: 3 } }
`);
    const invoker = new TestInvoker({ 'p.x': () => 'ok' });
    const seen: number[] = [];
    const flaky: RunInterceptor = {
      invoke: (call, next) => {
        seen.push(call.attempt);
        if (call.attempt < 3) throw new Error(`refused attempt ${call.attempt}`);
        return next(call);
      },
    };
    const clock = new ManualClock(0);
    const result = await runWorkflow(wf, {}, { invoker, clock, interceptors: [flaky] });
    expect(seen).toEqual([1, 2, 3]);
    expect(clock.sleeps).toEqual([1000, 2000]);
    expect(result.steps['a']).toMatchObject({ status: 'success', output: 'ok', attempts: 3 });
    expect(invoker.calls).toHaveLength(1);
  });

  it('shows every attempt of every for_each item with its number and index', async () => {
    const wf = workflow(`workflows:
  - name: w
    steps:
      - { name: a, plugin: p, action: x, for_each: [10, 20], input: { v: '{{ item }}' }, retry: { max_attempts: 2 } }
`);
    let calls = 0;
    const invoker = new TestInvoker({
      'p.x': (input) => {
        if (++calls % 2 === 1) throw new Error('first try fails');
        return input['v'];
      },
    });
    const seen: string[] = [];
    const record: RunInterceptor = {
      invoke: (call, next) => {
        seen.push(`${call.item}#${call.attempt} ${JSON.stringify(call.input)}`);
        return next(call);
      },
    };
    const clock = new ManualClock(0);
    const result = await runWorkflow(wf, {}, { invoker, clock, interceptors: [record] });
    expect(seen).toEqual(['0#1 {"v":10}', '0#2 {"v":10}', '1#1 {"v":20}', '1#2 {"v":20}']);
    expect(result.steps['a']).toMatchObject({ output: [10, 20], attempts: 4 });
  });

  it('does not intercept journaled steps, nor skipped ones', async () => {
    const wf = workflow(`workflows:
  - name: w
    steps:
      - { name: a, plugin: p, action: x }
      - { name: s, plugin: p, action: x, condition: false }
      - { name: b, plugin: p, action: y, input: { from: '{{ steps.a.output }}' } }
`);
    const journal: JournaledStep[] = [
      {
        path: 'a',
        entry: { status: 'success', output: 'from before' },
        attempts: 1,
        started_ms: 1,
        finished_ms: 2,
      },
    ];
    const log: string[] = [];
    const invoker = new TestInvoker({ 'p.y': (input) => input['from'] });
    const result = await runWorkflow(
      wf,
      {},
      { invoker, journal, interceptors: [logger('only', log)] },
    );
    expect(result.steps['b']!.output).toBe('from before');
    expect(log).toEqual([
      'only step b',
      'only invoke b#1',
      'only invoke b#1 done',
      'only step b done',
    ]);
  });

  it('intercepts the steps of a subworkflow, with the run that called it', async () => {
    const file = load(`workflows:
  - name: parent
    steps:
      - { name: call, type: workflow, workflow: child, input: { n: 2 } }
  - name: child
    version: 2.0.0
    inputs: { n: { type: number } }
    steps:
      - { name: inner, plugin: p, action: x, input: { n: '{{ inputs.n }}' } }
    outputs: { n: { value: '{{ steps.inner.output }}' } }
`);
    const [parent, child] = file.workflows;
    const invoker = new TestInvoker({ 'p.x': (input) => input['n'] });
    const steps: StepCall[] = [];
    const calls: Invocation[] = [];
    const watch: RunInterceptor = {
      step: (call, next) => {
        steps.push(call);
        return next();
      },
      invoke: (call, next) => {
        calls.push(call);
        return next(call);
      },
    };
    const result = await runWorkflow(
      parent!,
      {},
      {
        invoker,
        executionId: 'ex-1',
        resolveWorkflow: () => child,
        interceptors: [watch],
      },
    );
    expect(result.outputs).toEqual({});
    expect(result.steps['call']).toMatchObject({ status: 'success', outputs: { n: 2 } });
    expect(steps.map((s) => [s.step.path, s.step.kind, s.run.executionId, s.run.depth])).toEqual([
      ['call', 'workflow', 'ex-1', 0],
      ['inner', 'action', 'ex-1/call', 1],
    ]);
    const inner = steps[1]!.run;
    expect(inner.workflow.name).toBe('child');
    expect(inner.workflow.version).toBe('2.0.0');
    expect(inner.caller?.run).toBe(steps[0]!.run);
    expect(inner.caller?.step.path).toBe('call');
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      action: 'x',
      target: { kind: 'plugin', slug: 'p' },
      input: { n: 2 },
      attempt: 1,
      item: undefined,
    });
    expect(calls[0]!.context.idempotencyKey).toBe('ex-1/call/inner');
  });

  it('passes the principal, the mode and the workflow through to the hooks', async () => {
    // Opaque to the engine: whatever the caller authenticated is passed on as it is.
    const principal = { subject: 'ci-bot' } as unknown as Principal;
    let seen: StepCall['run'] | undefined;
    const watch: RunInterceptor = {
      step: (call, next) => {
        seen = call.run;
        return next();
      },
    };
    const invoker = new TestInvoker({ 'p.x': () => 1, 'p.y': () => 2 });
    await runWorkflow(
      twoSteps,
      {},
      { invoker, principal, executionMode: 'cloud', interceptors: [watch] },
    );
    expect(seen).toMatchObject({ principal, mode: 'cloud', depth: 0, caller: undefined });
    expect(seen!.workflow).toBe(twoSteps);
  });
});
