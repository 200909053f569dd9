import { ValidationError, type StreamEvent } from '@weft/core';
import { describe, expect, it } from 'vitest';
import { ManualClock, TestInvoker, delay } from '../test-support/invoker.js';
import { load } from '../test-support/load.js';
import { runWorkflow } from './run-workflow.js';

function workflow(yaml: string) {
  const result = load(yaml);
  if (!result.ok) throw new Error(result.diagnostics.map((d) => d.message).join('\n'));
  return result.workflows[0]!;
}

describe('running workflows', () => {
  it('runs steps in order, passing outputs through templates with their types', async () => {
    const wf = workflow(`workflows:
  - name: w
    inputs: { n: { type: number } }
    steps:
      - { name: a, plugin: math, action: double, input: { v: '{{ inputs.n }}' } }
      - { name: b, plugin: math, action: double, input: { v: '{{ steps.a.output.v }}' } }
    outputs:
      result: { value: '{{ steps.b.output.v }}' }
      text: { value: 'got {{ steps.b.output.v }}' }
`);
    const invoker = new TestInvoker({
      'math.double': (input) => ({ v: (input['v'] as number) * 2 }),
    });
    const result = await runWorkflow(wf, { n: 3 }, { invoker });
    expect(result.status).toBe('completed');
    expect(result.outputs).toEqual({ result: 12, text: 'got 12' });
    expect(result.steps['a']).toMatchObject({ status: 'success', output: { v: 6 }, attempts: 1 });
  });

  it('skips a step whose condition is false and lets later steps read its status', async () => {
    const wf = workflow(`workflows:
  - name: w
    steps:
      - { name: a, plugin: p, action: x, condition: '{{ 1 > 2 }}' }
      - { name: b, type: transform, input: { s: '{{ steps.a.status }}', o: '{{ steps.a.output }}' } }
`);
    const invoker = new TestInvoker({ 'p.x': () => ({}) });
    const result = await runWorkflow(wf, {}, { invoker });
    expect(invoker.calls).toHaveLength(0);
    expect(result.steps['a']!.status).toBe('skipped');
    expect(result.steps['b']!.output).toEqual({ s: 'skipped', o: null });
  });

  it('collects for_each outputs in item order, sequentially and concurrently', async () => {
    for (const parallel of [false, true]) {
      const wf = workflow(`workflows:
  - name: w
    steps:
      - name: each
        plugin: p
        action: slow
        for_each: '{{ inputs.items }}'
        parallel: ${parallel}
        input: { n: '{{ item }}' }
    inputs: { items: { type: array } }
    outputs: { all: { value: '{{ steps.each.output }}' } }
`);
      const invoker = new TestInvoker({
        'p.slow': async (input) => {
          await delay(40 - (input['n'] as number) * 10);
          return input['n'];
        },
      });
      const result = await runWorkflow(wf, { items: [1, 2, 3] }, { invoker });
      expect(result.outputs['all']).toEqual([1, 2, 3]);
      expect(invoker.maxInFlight).toBe(parallel ? 3 : 1);
    }
  });

  it('runs parallel children concurrently and reads them through their block', async () => {
    const wf = workflow(`workflows:
  - name: w
    steps:
      - name: both
        parallel:
          - { name: x, plugin: p, action: wait, input: { v: 1 } }
          - { name: y, plugin: p, action: wait, input: { v: 2 } }
      - { name: sum, type: transform, input: { t: '{{ steps.both.x.output + steps.both.y.output }}' } }
`);
    const invoker = new TestInvoker({
      'p.wait': async (input) => {
        await delay(20);
        return input['v'];
      },
    });
    const result = await runWorkflow(wf, {}, { invoker });
    expect(invoker.maxInFlight).toBe(2);
    expect(result.steps['sum']!.output).toEqual({ t: 3 });
    expect(result.steps['both']!.output).toEqual({ x: 1, y: 2 });
  });

  it('retries with exponential and fixed backoff, counting every attempt', async () => {
    for (const [backoff, sleeps] of [
      ['exponential', [500, 1000, 2000]],
      ['fixed', [500, 500, 500]],
    ] as const) {
      const wf = workflow(`workflows:
  - name: w
    steps:
      - { name: a, plugin: p, action: flaky, retry: { max_attempts: 4, backoff: ${backoff}, backoff_factor: 0.5 } }
`);
      let calls = 0;
      const invoker = new TestInvoker({
        'p.flaky': () => {
          if (++calls < 4) throw new Error('try again');
          return 'ok';
        },
      });
      const clock = new ManualClock(0);
      const result = await runWorkflow(wf, {}, { invoker, clock });
      expect(result.status).toBe('completed');
      expect(result.steps['a']!.attempts).toBe(4);
      expect(clock.sleeps).toEqual(sleeps);
    }
  });

  it('stops retrying after max_attempts and never retries VALIDATION', async () => {
    const wf = workflow(`workflows:
  - name: w
    steps:
      - { name: a, plugin: p, action: bad, retry: { max_attempts: 3 } }
`);
    const clock = new ManualClock(0);
    const validation = new TestInvoker({
      'p.bad': () => {
        throw new ValidationError('no', { field: 'input.x', constraint: 'required' });
      },
    });
    const once = await runWorkflow(wf, {}, { invoker: validation, clock });
    expect(once.steps['a']!.attempts).toBe(1);
    expect(once.error).toMatchObject({ code: 'VALIDATION', details: { field: 'input.x' } });
    const failing = new TestInvoker({ 'p.bad': () => Promise.reject(new Error('down')) });
    const thrice = await runWorkflow(wf, {}, { invoker: failing, clock });
    expect(thrice.steps['a']!.attempts).toBe(3);
    expect(clock.sleeps).toEqual([1000, 2000]);
  });

  it('times out an attempt, aborts the handler signal and reports TIMEOUT', async () => {
    const wf = workflow(`workflows:
  - name: w
    steps:
      - { name: a, plugin: p, action: hang, timeout: 1 }
`);
    let aborted = false;
    const invoker = new TestInvoker({
      'p.hang': (_input, context) =>
        new Promise((_resolve, reject) => {
          context.signal.addEventListener('abort', () => {
            aborted = true;
            reject(new Error('aborted'));
          });
        }),
    });
    const result = await runWorkflow(wf, {}, { invoker });
    expect(aborted).toBe(true);
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ code: 'TIMEOUT', details: { timeout_ms: 1000 } });
    const elapsed = (result.error!.details as { elapsed_ms: number }).elapsed_ms;
    expect(elapsed).toBeGreaterThanOrEqual(990);
    expect(Number.isInteger(elapsed)).toBe(true);
  });

  it('uses the default timeout when the step sets none, even if the handler ignores its signal', async () => {
    const wf = workflow(
      'workflows:\n  - name: w\n    steps:\n      - { name: a, plugin: p, action: hang }\n',
    );
    const invoker = new TestInvoker({ 'p.hang': () => new Promise(() => {}) });
    const result = await runWorkflow(wf, {}, { invoker, defaultTimeoutMs: 30 });
    expect(result.error).toMatchObject({ code: 'TIMEOUT', details: { timeout_ms: 30 } });
  });

  it("bounds an attempt by the step's runtime.resources.timeout when it has no timeout", async () => {
    const wf = workflow(`workflows:
  - name: w
    steps:
      - { name: a, plugin: p, action: slow, runtime: { resources: { timeout: 1 } } }
`);
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    let aborted = false;
    const invoker = new TestInvoker({
      // Six seconds pass on the run's clock; the handler waits on its signal.
      'p.slow': (_input, context) => {
        clock.advance(6_000);
        return new Promise((_resolve, reject) =>
          context.signal.addEventListener('abort', () => {
            aborted = true;
            reject(new Error('aborted'));
          }),
        );
      },
    });
    const result = await runWorkflow(wf, {}, { invoker, clock, defaultTimeoutMs: 120_000 });
    expect(aborted).toBe(true);
    expect(result.error).toMatchObject({ code: 'TIMEOUT', details: { timeout_ms: 1000 } });
    expect(invoker.calls[0]!.runtime).toEqual({ resources: { timeout: 1 } });
  });

  it('continues after a failed step with continue_on_error, whose error is readable', async () => {
    const wf = workflow(`workflows:
  - name: w
    steps:
      - { name: a, plugin: p, action: boom, continue_on_error: true }
      - { name: b, type: transform, input: { status: '{{ steps.a.status }}', code: '{{ steps.a.error.code }}' } }
`);
    const invoker = new TestInvoker({ 'p.boom': () => Promise.reject(new Error('kaput')) });
    const result = await runWorkflow(wf, {}, { invoker });
    expect(result.status).toBe('completed');
    expect(result.steps['a']).toMatchObject({
      status: 'failed',
      error: { code: 'BACKEND_ERROR', details: { backend: 'p', original_error: 'kaput' } },
    });
    expect(result.steps['b']!.output).toEqual({ status: 'failed', code: 'BACKEND_ERROR' });
  });

  it('halts at a failed step: later steps do not run and the workflow fails with its error', async () => {
    const wf = workflow(`workflows:
  - name: w
    steps:
      - { name: a, plugin: p, action: boom }
      - { name: b, plugin: p, action: never }
`);
    const invoker = new TestInvoker({
      'p.boom': () => Promise.reject(new Error('kaput')),
      'p.never': () => 1,
    });
    const result = await runWorkflow(wf, {}, { invoker });
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('BACKEND_ERROR');
    expect(Object.keys(result.steps)).toEqual(['a']);
  });

  it('fails agent steps without a backend with UNAVAILABLE', async () => {
    const wf = workflow(`workflows:
  - name: w
    steps:
      - { name: a, type: agent, agent: 'agent:acme/helper@1.0.0', backend: langchain }
`);
    const result = await runWorkflow(wf, {}, { invoker: new TestInvoker({}) });
    expect(result.error).toMatchObject({ code: 'UNAVAILABLE', details: { backend: 'langchain' } });
    expect((result.error!.details as { suggestion: string }).suggestion).toBeTruthy();
  });

  it('runs a subworkflow and exposes its outputs', async () => {
    const file = load(`workflows:
  - name: main
    steps:
      - { name: call, workflow: child, input: { x: 4 } }
    outputs: { y: { value: '{{ steps.call.outputs.y }}' } }
  - name: child
    inputs: { x: { type: number, required: true } }
    steps:
      - { name: t, type: transform, input: { y: '{{ inputs.x * 10 }}' } }
    outputs: { y: { value: '{{ steps.t.output.y }}' } }
`);
    const [main, child] = file.workflows;
    const result = await runWorkflow(
      main!,
      {},
      {
        invoker: new TestInvoker({}),
        resolveWorkflow: (name) => (name === 'child' ? child : undefined),
      },
    );
    expect(result.outputs).toEqual({ y: 40 });
    expect(result.steps['call']!.outputs).toEqual({ y: 40 });
  });

  it("streams a subworkflow's steps under the calling step's path, and one workflow.completed", async () => {
    const file = load(`workflows:
  - name: main
    steps:
      - { name: call, workflow: child, input: { x: 4 } }
  - name: child
    inputs: { x: { type: number, required: true } }
    steps:
      - { name: t, type: transform, input: { y: '{{ inputs.x }}' } }
`);
    const [main, child] = file.workflows;
    const events: string[] = [];
    await runWorkflow(
      main!,
      {},
      {
        invoker: new TestInvoker({}),
        resolveWorkflow: (name) => (name === 'child' ? child : undefined),
        onEvent: (event) => events.push(`${event.type} ${event.step_name}`.trim()),
      },
    );
    expect(events).toEqual([
      'step.started call',
      'step.started call/t',
      'step.completed call/t',
      'step.completed call',
      'workflow.completed',
    ]);
  });

  it('cancels: in-flight actions are aborted and the run ends canceled', async () => {
    const wf = workflow(
      'workflows:\n  - name: w\n    steps:\n      - { name: a, plugin: p, action: hang }\n      - { name: b, plugin: p, action: hang }\n',
    );
    const controller = new AbortController();
    let sawAbort = false;
    const invoker = new TestInvoker({
      'p.hang': (_i, context) =>
        new Promise((_r, reject) => {
          context.signal.addEventListener('abort', () => {
            sawAbort = true;
            reject(new Error('stopped'));
          });
          setTimeout(() => controller.abort(), 5);
        }),
    });
    const result = await runWorkflow(wf, {}, { invoker, signal: controller.signal });
    expect(sawAbort).toBe(true);
    expect(result.status).toBe('canceled');
    expect(result.error?.code).toBe('CANCELED');
    expect(
      Date.parse((result.error!.details as { canceled_at: string }).canceled_at),
    ).not.toBeNaN();
    expect(invoker.calls).toHaveLength(1);
  });

  it('emits the events (docs/protocol.md#stream-events) in order, with progress reported by handlers', async () => {
    const wf = workflow(
      'workflows:\n  - name: w\n    steps:\n      - { name: a, plugin: p, action: work }\n',
    );
    const events: StreamEvent[] = [];
    const invoker = new TestInvoker({
      'p.work': (_i, context) => {
        context.progress(50, 'half way');
        return { done: true };
      },
    });
    await runWorkflow(wf, {}, { invoker, executionId: 'exec-1', onEvent: (e) => events.push(e) });
    expect(events.map((e) => e.type)).toEqual([
      'step.started',
      'step.progress',
      'step.completed',
      'workflow.completed',
    ]);
    expect(events[1]).toMatchObject({
      workflow_id: 'exec-1',
      step_name: 'a',
      data: { percent: 50, message: 'half way' },
    });
    expect(events[2]!.data).toMatchObject({
      status: 'success',
      output: { done: true },
      attempts: 1,
    });
    expect(Date.parse(events[0]!.timestamp)).not.toBeNaN();
  });

  it('gives handlers the context (docs/protocol.md#execution-context)', async () => {
    const wf = workflow(`workflows:
  - name: w
    inputs: { who: {} }
    steps:
      - { name: first, type: transform, input: { v: 1 } }
      - { name: second, plugin: p, action: look, input: { token: '{{ secrets.TOKEN }}' } }
`);
    const invoker = new TestInvoker({ 'p.look': () => null });
    await runWorkflow(
      wf,
      { who: 'ann' },
      { invoker, executionId: 'e-9', environment: { TOKEN: 't0ken', HOME: '/h' } },
    );
    const context = invoker.calls[0]!.context;
    expect(context).toMatchObject({
      workflowId: 'e-9',
      stepName: 'second',
      executionMode: 'local',
      idempotencyKey: 'e-9/second',
    });
    expect(context.inputs).toEqual({ who: 'ann' });
    expect(context.environment['HOME']).toBe('/h');
    expect(context.secrets).toEqual({ TOKEN: 't0ken' });
    expect(context.previousSteps['first']).toMatchObject({ status: 'success', output: { v: 1 } });
    expect(context.signal.aborted).toBe(false);
  });
});
