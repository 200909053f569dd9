import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { openTestExecutionsStore, type TestExecutionsStore } from '@weft/store';
import {
  InMemorySpanExporter,
  startTelemetry,
  type ReadableSpan,
  type Telemetry,
} from '@weft/telemetry/setup';
import {
  buildRuntimeHarness,
  KEYS,
  testActions,
  workflowText,
  type RuntimeHarness,
} from '../test-support/harness.js';
import { WAIT_STORES, waitWorld, type WaitWorld } from '../test-support/waits.js';

// The trace context is journaled (migration 0014): a run resumed after an approval or on
// another runtime after a crash makes its span a child of the execution's first run span.

const exporter = new InMemorySpanExporter();
let telemetry: Telemetry;
beforeAll(() => {
  telemetry = startTelemetry({ serviceName: 'test', traces: { exporter, simple: true } });
});
afterAll(() => telemetry.shutdown());
beforeEach(() => exporter.reset());

const INCOMING_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const APPROVAL = { kind: 'approval', timeoutMs: 3_600_000, details: { approvers: ['ops'] } };

const runSpans = (): ReadableSpan[] =>
  exporter.getFinishedSpans().filter((s) => s.name.startsWith('workflow '));

/**
 * The run spans once `count` have ended. A run's span ends just after its end is stored, so
 * `waitFor` can answer first (seen in CI on PostgreSQL).
 */
async function endedRunSpans(count: number): Promise<ReadableSpan[]> {
  await vi.waitFor(() => expect(runSpans()).toHaveLength(count), { timeout: 5_000 });
  return runSpans();
}

let store: TestExecutionsStore | undefined;
let world: WaitWorld | undefined;
const harnesses: RuntimeHarness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
  await world?.close();
  await store?.dispose();
  store = world = undefined;
});

describe.each(WAIT_STORES)('the trace of an execution on $name', ({ kind, url, skip }) => {
  it.skipIf(skip)('an approval-resumed run stays in the trace it started in', async () => {
    store = await openTestExecutionsStore(kind, url);
    world = waitWorld(store);
    const h = await world.replica({ tracing: telemetry.tracing! });
    const traceparent = `00-${INCOMING_TRACE}-00f067aa0ba902b7-01`;
    const { id } = await world.startWaiting(h, APPROVAL, { trace: { traceparent } });
    const stored = await store.executions.get(id);
    expect(stored!.trace_context!.traceparent).toMatch(new RegExp(`^00-${INCOMING_TRACE}-`));
    // Nothing ran: the first run span ended at once, waiting.
    expect(runSpans().map((s) => s.attributes['weft.execution.status'])).toEqual(['waiting']);

    expect((await h.runtime.resumeExecution(id, { kind: 'approval', data: {} })).won).toBe(true);
    expect((await h.runtime.waitFor(id, 'alice', 10_000)).status).toBe('completed');
    const [first, resumed] = await endedRunSpans(2);
    expect(resumed!.attributes).toMatchObject({
      'weft.execution_id': id,
      'weft.execution.resumed': true,
      'weft.execution.status': 'completed',
    });
    expect(resumed!.parentSpanContext?.spanId).toBe(first!.spanContext().spanId);
    // Every span of the execution, its steps' and action calls' too, is in the incoming trace.
    const all = exporter.getFinishedSpans();
    expect(all.filter((s) => s.name.startsWith('step ')).length).toBe(2);
    expect(new Set(all.map((s) => s.spanContext().traceId))).toEqual(new Set([INCOMING_TRACE]));
  });

  it.skipIf(skip)('a run taken over after its server went away stays in its trace', async () => {
    store = await openTestExecutionsStore(kind, url);
    let entered: () => void = () => {};
    const inB = new Promise<void>((resolve) => (entered = resolve));
    const chain = workflowText(
      `      - { name: a, plugin: p, action: step, input: { v: 1 } }
      - { name: b, plugin: p, action: block, input: { v: 2 } }
`,
    );
    const first = await buildRuntimeHarness(
      store.executions,
      testActions({
        'p.step': (input) => input,
        'p.block': (_input, context) => {
          entered();
          return new Promise((_resolve, reject) =>
            context.signal.addEventListener('abort', () => reject(context.signal.reason)),
          );
        },
      }),
      { tracing: telemetry.tracing! },
    );
    harnesses.push(first);
    const answer = await first.app.inject({
      method: 'POST',
      url: '/workflows/executions',
      headers: { authorization: KEYS.alice },
      payload: { workflow: chain },
    });
    const id = answer.json().execution_id as string;
    await inB;
    // The server goes away with b in flight; another one takes the execution over.
    await first.close();
    harnesses.pop();
    const second = await buildRuntimeHarness(
      store.executions,
      testActions({ 'p.step': (input) => input, 'p.block': (input) => input }),
      { takeOverOnStart: true, tracing: telemetry.tracing! },
    );
    harnesses.push(second);
    expect((await second.runtime.waitFor(id, 'alice', 10_000)).status).toBe('completed');

    const [detached, resumed] = await endedRunSpans(2);
    expect(detached!.attributes['weft.execution.status']).toBe('detached');
    expect(detached!.parentSpanContext).toBeUndefined();
    expect(resumed!.attributes['weft.execution.resumed']).toBe(true);
    expect(resumed!.parentSpanContext?.spanId).toBe(detached!.spanContext().spanId);
    const traces = new Set(exporter.getFinishedSpans().map((s) => s.spanContext().traceId));
    expect(traces).toEqual(new Set([detached!.spanContext().traceId]));
    const resumedSteps = exporter
      .getFinishedSpans()
      .filter((s) => s.name === 'step b' && s.attributes['weft.step.status'] === 'success');
    expect(resumedSteps[0]!.parentSpanContext?.spanId).toBe(resumed!.spanContext().spanId);
  });
});
