import type { StreamEvent } from '@weft/core';
import { describe, expect, it } from 'vitest';
import { ManualClock, TestInvoker } from '../test-support/invoker.js';
import { load } from '../test-support/load.js';
import { runWorkflow } from './run-workflow.js';

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

function workflow(yaml: string) {
  const result = load(yaml);
  if (!result.ok) throw new Error(result.diagnostics.map((d) => d.message).join('\n'));
  return result.workflows[0]!;
}

describe("the run's clock", () => {
  it('gives every timestamp and duration of the run, its steps and its events', async () => {
    const wf = workflow(`workflows:
  - name: w
    steps:
      - { name: a, plugin: p, action: slow }
      - { name: b, type: transform, input: { v: 1 } }
`);
    const clock = new ManualClock(T0);
    const invoker = new TestInvoker({
      'p.slow': () => {
        clock.advance(250);
        return 'done';
      },
    });
    const events: StreamEvent[] = [];
    const result = await runWorkflow(wf, {}, { invoker, clock, onEvent: (e) => events.push(e) });
    expect(result.steps['a']).toMatchObject({
      started_at: at(0),
      finished_at: at(250),
      duration_ms: 250,
    });
    expect(result.steps['b']).toMatchObject({
      started_at: at(250),
      finished_at: at(250),
      duration_ms: 0,
    });
    expect(result).toMatchObject({ started_at: at(0), finished_at: at(250), duration_ms: 250 });
    expect(events.map((e) => `${e.type} ${e.step_name} ${e.timestamp}`)).toEqual([
      `step.started a ${at(0)}`,
      `step.completed a ${at(250)}`,
      `step.started b ${at(250)}`,
      `step.completed b ${at(250)}`,
      `workflow.completed  ${at(250)}`,
    ]);
    expect(events[1]!.data).toMatchObject({ duration_ms: 250 });
  });

  it('decides when an attempt times out, and how long it ran', async () => {
    const wf = workflow(`workflows:
  - name: w
    steps:
      - { name: a, plugin: p, action: hang }
`);
    const clock = new ManualClock(T0);
    const invoker = new TestInvoker({
      'p.hang': () => {
        clock.advance(5_000);
        return new Promise(() => {});
      },
    });
    const result = await runWorkflow(wf, {}, { invoker, clock, defaultTimeoutMs: 20 });
    expect(result.error).toMatchObject({
      code: 'TIMEOUT',
      details: { timeout_ms: 20, elapsed_ms: 5_000 },
    });
    expect(result.steps['a']!.duration_ms).toBe(5_000);
  });

  it('stamps a cancellation with its time', async () => {
    const wf = workflow(`workflows:
  - name: w
    steps:
      - { name: a, plugin: p, action: hang }
`);
    const clock = new ManualClock(T0);
    const controller = new AbortController();
    const invoker = new TestInvoker({
      'p.hang': () => {
        clock.advance(42);
        controller.abort();
        return new Promise(() => {});
      },
    });
    const result = await runWorkflow(wf, {}, { invoker, clock, signal: controller.signal });
    expect(result.status).toBe('canceled');
    expect(result.error).toMatchObject({ code: 'CANCELED', details: { canceled_at: at(42) } });
  });

  it('gives each attempt of a retried step its span on the end event (attempt_log)', async () => {
    const wf = workflow(`workflows:
  - name: w
    steps:
      - { name: a, plugin: p, action: flaky, retry: { max_attempts: 3, backoff: fixed, backoff_factor: 1 } }
      - { name: b, plugin: p, action: flaky }
`);
    const clock = new ManualClock(T0);
    let calls = 0;
    const invoker = new TestInvoker({
      'p.flaky': () => {
        clock.advance(100);
        if (++calls === 1) throw new Error('not yet');
        return 'done';
      },
    });
    const events: StreamEvent[] = [];
    await runWorkflow(wf, {}, { invoker, clock, onEvent: (e) => events.push(e) });
    const ends = events.filter((e) => e.type === 'step.completed');
    expect(ends[0]!.data).toMatchObject({
      attempts: 2,
      attempt_log: [
        { started_at: at(0), finished_at: at(100), error_code: 'BACKEND_ERROR' },
        { started_at: at(1100), finished_at: at(1200) },
      ],
    });
    expect(ends[0]!.data['attempt_log']).toHaveLength(2);
    // One attempt: its span is the step's, nothing more is sent.
    expect(ends[1]!.data).not.toHaveProperty('attempt_log');
  });
});
