import {
  context,
  propagation,
  ROOT_CONTEXT,
  trace,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { RunInterceptor } from '@weft/engine';
import { ATTR } from './attributes.js';
import { errorCodeOf, failSpan } from './errors.js';
import { modelTurnSpans, type ModelTurnSpans } from './genai.js';
import { tracingInterceptor, TraceScopes } from './interceptor.js';
import { traceCarrierOfSpan, type TraceCarrier } from './propagation.js';

/** How a run ended, as far as its span says: a run result or an ended execution record. */
export type RunEnd = { status: string; error?: { code: string } | null } | undefined;

/** Who a traced run is (the attributes of its `workflow <name>` span). */
export interface RunSpanInfo {
  executionId: string;
  workflow: string;
  version: string;
  /** `cloud`, `local`, `self_hosted`, `hybrid`. */
  mode: string;
}

/**
 * The span of an execution's first run, started before the execution is stored so that its
 * trace context is stored with it ({@link carrier}): a run resumed later or elsewhere
 * ({@link WorkflowTracing.traceRun} with that carrier) makes its span a child of this one.
 * Pass it to `traceRun` to run in it, or {@link end} it when the run does not happen here.
 */
export class RunSpan {
  /** `traceparent`/`tracestate` of this span, to store with the execution (none: invalid span). */
  readonly carrier: TraceCarrier | undefined;
  private ended = false;

  constructor(
    /** The span (used by {@link WorkflowTracing.traceRun}). */
    readonly span: Span,
    /** The context it is active in. */
    readonly context: Context,
  ) {
    const spanContext = span.spanContext();
    this.carrier = trace.isSpanContextValid(spanContext)
      ? traceCarrierOfSpan(spanContext)
      : undefined;
  }

  /** Ends it with `status` as `weft.execution.status` (`waiting`, `detached`...) if not ended. */
  end(status: string): void {
    if (this.ended) return;
    this.ended = true;
    this.span.setAttribute(ATTR.runStatus, status);
    this.span.end();
  }

  /** Marks it ended by its run; false when {@link end} came first. */
  take(): boolean {
    if (this.ended) return false;
    this.ended = true;
    return true;
  }
}

/**
 * Tracing of workflow runs with one tracer: {@link traceRun} puts a run in its span, and
 * {@link interceptor} (for `RunOptions.interceptors`) adds its steps and action calls. Made by
 * `startTelemetry` (`@weft/telemetry/setup`) when tracing is on; where it is off, nothing of
 * this is created or installed.
 */
export class WorkflowTracing {
  /** The step and action-call spans, as an engine interceptor (put it first in the list). */
  readonly interceptor: RunInterceptor;
  /** GenAI spans of agent model turns (for `AgentRunner.turns` of `@weft/agents`). */
  readonly modelTurns: ModelTurnSpans;
  private readonly scopes = new TraceScopes();

  constructor(readonly tracer: Tracer) {
    this.interceptor = tracingInterceptor(tracer, this.scopes);
    this.modelTurns = modelTurnSpans(tracer);
  }

  /** The trace context of the span of the run of `executionId` in progress here, if any. */
  runTrace(executionId: string): TraceCarrier | undefined {
    const span = this.runSpan(executionId);
    return span && traceCarrierOfSpan(span.spanContext());
  }

  /** `trace_id` and `span_id` of the run of `executionId` in progress here, for log lines. */
  runTraceFields(executionId: string): { trace_id?: string; span_id?: string } {
    const span = this.runSpan(executionId);
    if (span === undefined) return {};
    const { traceId, spanId } = span.spanContext();
    return { trace_id: traceId, span_id: spanId };
  }

  private runSpan(executionId: string): Span | undefined {
    const active = this.scopes.runs.get(executionId);
    return active && trace.getSpan(active);
  }

  /**
   * Starts the span `workflow <name>` of a new execution's first run, before it is stored: a
   * child of `parent` (the trace context of the request that starts it) when given, else of
   * the active span. See {@link RunSpan}.
   */
  startRun(info: RunSpanInfo, parent: TraceCarrier | undefined): RunSpan {
    const base =
      parent === undefined ? context.active() : propagation.extract(ROOT_CONTEXT, parent);
    const span = this.tracer.startSpan(
      `workflow ${info.workflow}`,
      { attributes: runAttributes(info) },
      base,
    );
    return new RunSpan(span, trace.setSpan(base, span));
  }

  /**
   * Runs `run` in a span `workflow <name>`: the {@link RunSpan} started for it, or a new span,
   * child of `parent` (the trace context of the request that started it, or the one stored
   * with the execution it resumes, then with `weft.execution.resumed`) when given, else of the
   * active span. Its status is the run's: ERROR with the error code when it failed or was
   * canceled (undefined: the run stopped here without ending, e.g. at shutdown).
   *
   * The run's steps find the span by `info.executionId` ({@link interceptor}); it is made the
   * active span around `run` only with `activate` (for log lines of in-process code, as the
   * SDK's local runs want), since an active context costs every promise an async hook.
   */
  async traceRun<T extends RunEnd>(
    info: RunSpanInfo,
    parent: RunSpan | TraceCarrier | undefined,
    run: () => Promise<T>,
    options: { resumed?: boolean; activate?: boolean } = {},
  ): Promise<T> {
    let span: Span;
    let active: Context;
    if (parent instanceof RunSpan && parent.take()) {
      span = parent.span;
      active = parent.context;
    } else {
      const carrier = parent instanceof RunSpan ? parent.carrier : parent;
      const base =
        carrier === undefined ? context.active() : propagation.extract(ROOT_CONTEXT, carrier);
      const attributes = runAttributes(info);
      if (options.resumed) attributes[ATTR.resumed] = true;
      span = this.tracer.startSpan(`workflow ${info.workflow}`, { attributes }, base);
      active = trace.setSpan(base, span);
    }
    const { runs } = this.scopes;
    runs.set(info.executionId, active);
    try {
      const result = await (options.activate ? context.with(active, run) : run());
      span.setAttribute(ATTR.runStatus, result?.status ?? 'detached');
      if (result !== undefined && result.status !== 'completed')
        failSpan(span, result.error?.code ?? 'INTERNAL_ERROR');
      return result;
    } catch (error) {
      failSpan(span, errorCodeOf(error));
      throw error;
    } finally {
      if (runs.get(info.executionId) === active) runs.delete(info.executionId);
      span.end();
    }
  }
}

function runAttributes(info: RunSpanInfo): Record<string, string | boolean> {
  return {
    [ATTR.executionId]: info.executionId,
    [ATTR.workflow]: info.workflow,
    [ATTR.workflowVersion]: info.version,
    [ATTR.executionMode]: info.mode,
  };
}
