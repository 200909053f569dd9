import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { BackendError, type ActionCall, type ActionInvoker } from '@weft/core';
import { loadWorkflowSource, runWorkflow, type WorkflowDefinition } from '@weft/engine';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { injectTraceContext } from './propagation.js';
import { InMemorySpanExporter, startTelemetry, type Telemetry } from './setup/index.js';

function workflow(yaml: string): WorkflowDefinition {
  const result = loadWorkflowSource(yaml, { file: 'test.yaml' });
  if (!result.ok) throw new Error(result.diagnostics.map((d) => d.message).join('\n'));
  return result.workflows[0]!;
}

const flow = workflow(`workflows:
  - name: orders
    version: 1.2.0
    inputs:
      token: { type: string }
    steps:
      - name: fetch
        plugin: shop
        action: get
        input: { auth: '{{ secrets.SHOP_TOKEN }}', token: '{{ inputs.token }}' }
        retry: { max_attempts: 2, backoff_factor: 0.001 }
      - name: both
        type: parallel
        parallel:
          - { name: left, plugin: shop, action: put }
          - { name: right, type: transform, input: { x: 1 } }
`);

const SECRET = 's3cr3t-value-never-in-spans';

describe('tracing a run', () => {
  const exporter = new InMemorySpanExporter();
  let telemetry: Telemetry;
  const headersSeen: Record<string, string>[] = [];
  let failFirst = true;
  const invoker: ActionInvoker = {
    invoke: async (call: ActionCall) => {
      // Tracing passes the action span's context on the call, not as the active context.
      expect(trace.getActiveSpan()).toBeUndefined();
      headersSeen.push({ ...call.trace });
      if (call.action === 'get' && failFirst) {
        failFirst = false;
        throw new BackendError(`upstream said no to ${SECRET}`, {
          backend: 'shop',
          original_error: SECRET,
        });
      }
      return { output: { ok: true } };
    },
  };

  beforeAll(() => {
    telemetry = startTelemetry({ serviceName: 'test', traces: { exporter, simple: true } });
  });
  afterAll(() => telemetry.shutdown());
  beforeEach(() => exporter.reset());

  it('makes one trace: the run, its steps, and a CLIENT span per action call', async () => {
    const tracing = telemetry.tracing!;
    const result = await tracing.traceRun(
      { executionId: 'ex-1', workflow: 'orders', version: '1.2.0', mode: 'local' },
      undefined,
      () =>
        runWorkflow(
          flow,
          { token: SECRET },
          {
            invoker,
            executionId: 'ex-1',
            interceptors: [tracing.interceptor],
            secrets: { get: async () => SECRET },
          },
        ),
    );
    expect(result.status).toBe('completed');
    const spans = exporter.getFinishedSpans();
    const byName = new Map(spans.map((s) => [s.name, s]));
    const run = byName.get('workflow orders')!;
    expect(run.attributes).toMatchObject({
      'weft.execution_id': 'ex-1',
      'weft.workflow': 'orders',
      'weft.workflow.version': '1.2.0',
      'weft.execution_mode': 'local',
    });
    expect(new Set(spans.map((s) => s.spanContext().traceId))).toEqual(
      new Set([run.spanContext().traceId]),
    );
    const parentOf = (name: string) =>
      spans.find((s) => s.spanContext().spanId === byName.get(name)!.parentSpanContext?.spanId)
        ?.name;
    expect(parentOf('step fetch')).toBe('workflow orders');
    expect(parentOf('step both')).toBe('workflow orders');
    expect(parentOf('step both/left')).toBe('step both');
    expect(parentOf('step both/right')).toBe('step both');
    expect(parentOf('action shop.put')).toBe('step both/left');
    const fetch = byName.get('step fetch')!;
    expect(fetch.attributes).toMatchObject({
      'weft.step.kind': 'action',
      'weft.step.status': 'success',
      'weft.step.attempts': 2,
    });
    // Two attempts: the first failed with its code, the second succeeded.
    const gets = spans.filter((s) => s.name === 'action shop.get');
    expect(gets.map((s) => s.kind)).toEqual([SpanKind.CLIENT, SpanKind.CLIENT]);
    expect(gets.map((s) => s.attributes['weft.action.attempt'])).toEqual([1, 2]);
    expect(gets[0]!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'BACKEND_ERROR' });
    const fetchId = byName.get('step fetch')!.spanContext().spanId;
    expect(gets.map((s) => s.parentSpanContext?.spanId)).toEqual([fetchId, fetchId]);
    // The invoker got the action span's trace context: its traceparent goes on the wire.
    expect(headersSeen[0]!['traceparent']).toBe(
      `00-${run.spanContext().traceId}-${gets[0]!.spanContext().spanId}-01`,
    );
    // No secret anywhere: not in attributes, events, status.
    expect(JSON.stringify(spans.map((s) => [s.attributes, s.events, s.status]))).not.toContain(
      SECRET,
    );
  });

  it('marks a failed run and step with the error code, and joins a remote parent', async () => {
    const tracing = telemetry.tracing!;
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const failing = workflow(`workflows:
  - name: bad
    steps:
      - { name: only, plugin: shop, action: boom }
`);
    const result = await tracing.traceRun(
      { executionId: 'ex-2', workflow: 'bad', version: '1.0.0', mode: 'cloud' },
      { traceparent: `00-${traceId}-b7ad6b7169203331-01` },
      () =>
        runWorkflow(
          failing,
          {},
          {
            invoker: {
              invoke: async () => {
                throw new BackendError('no', { backend: 'shop', original_error: 'no' });
              },
            },
            interceptors: [tracing.interceptor],
          },
        ),
    );
    expect(result.status).toBe('failed');
    const spans = exporter.getFinishedSpans();
    const run = spans.find((s) => s.name === 'workflow bad')!;
    expect(run.spanContext().traceId).toBe(traceId);
    expect(run.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    expect(run.status.code).toBe(SpanStatusCode.ERROR);
    const step = spans.find((s) => s.name === 'step only')!;
    expect(step.attributes['weft.step.status']).toBe('failed');
    expect(step.attributes['weft.error.code']).toBe('BACKEND_ERROR');
  });

  it('nests a subworkflow under the step calling it, and keeps concurrent runs apart', async () => {
    const tracing = telemetry.tracing!;
    const loaded = loadWorkflowSource(
      `workflows:
  - name: outer
    steps:
      - { name: call, type: workflow, workflow: inner }
      - name: both
        type: parallel
        parallel:
          - { name: a, type: workflow, workflow: inner }
          - { name: b, type: workflow, workflow: inner }
  - name: inner
    steps:
      - { name: work, plugin: shop, action: put }
`,
      { file: 'test.yaml' },
    );
    if (!loaded.ok) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
    const [outer, inner] = loaded.workflows as [WorkflowDefinition, WorkflowDefinition];
    const runOne = (id: string) =>
      tracing.traceRun(
        { executionId: id, workflow: 'outer', version: '1.0.0', mode: 'cloud' },
        undefined,
        () =>
          runWorkflow(
            outer,
            {},
            {
              invoker,
              executionId: id,
              interceptors: [tracing.interceptor],
              resolveWorkflow: (name) => (name === 'inner' ? inner : undefined),
            },
          ),
      );
    const results = await Promise.all([runOne('ex-a'), runOne('ex-b')]);
    expect(results.map((r) => r.status)).toEqual(['completed', 'completed']);
    const spans = exporter.getFinishedSpans();
    const parent = (span: (typeof spans)[number]) =>
      spans.find((s) => s.spanContext().spanId === span.parentSpanContext?.spanId);
    for (const id of ['ex-a', 'ex-b']) {
      const mine = spans.filter((s) =>
        s.attributes['weft.execution_id']?.toString().startsWith(id),
      );
      const run = mine.find((s) => s.name === 'workflow outer')!;
      const call = mine.find((s) => s.name === 'step call')!;
      const called = mine.filter((s) => s.attributes['weft.execution_id'] === `${id}/call`);
      const work = called.find((s) => s.name === 'step work')!;
      const action = called.find((s) => s.name === 'action shop.put')!;
      expect(parent(call)).toBe(run);
      expect(parent(work)).toBe(call);
      expect(parent(action)).toBe(work);
      expect(new Set(mine.map((s) => s.spanContext().traceId)).size).toBe(1);
      // Two calls at once in a parallel block: each subworkflow's steps under its own call.
      const both = mine.find((s) => s.name === 'step both')!;
      for (const name of ['a', 'b']) {
        const caller = mine.find((s) => s.name === `step both/${name}`)!;
        expect(parent(caller)).toBe(both);
        const inner = mine.filter(
          (s) => s.attributes['weft.execution_id'] === `${id}/both/${name}`,
        );
        const step = inner.find((s) => s.name === 'step work')!;
        expect(parent(step)).toBe(caller);
        expect(parent(inner.find((s) => s.name === 'action shop.put')!)).toBe(step);
      }
    }
  });

  it('injects nothing when no span is active', () => {
    expect(trace.getSpan(context.active())).toBeUndefined();
    expect(injectTraceContext({})).toEqual({});
  });
});
