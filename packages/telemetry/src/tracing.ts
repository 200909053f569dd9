import { context, propagation, ROOT_CONTEXT, trace, type Tracer } from '@opentelemetry/api';
import type { RunInterceptor } from '@weft/engine';
import { ATTR } from './attributes.js';
import { errorCodeOf, failSpan } from './errors.js';
import { tracingInterceptor } from './interceptor.js';
import type { TraceCarrier } from './propagation.js';

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
 * Tracing of workflow runs with one tracer: {@link traceRun} puts a run in its span, and
 * {@link interceptor} (for `RunOptions.interceptors`) adds its steps and action calls. Made by
 * `startTelemetry` (`@weft/telemetry/setup`) when tracing is on; where it is off, nothing of
 * this is created or installed.
 */
export class WorkflowTracing {
  /** The step and action-call spans, as an engine interceptor (put it first in the list). */
  readonly interceptor: RunInterceptor;

  constructor(readonly tracer: Tracer) {
    this.interceptor = tracingInterceptor(tracer);
  }

  /**
   * Runs `run` in a span `workflow <name>`: a child of `parent` (the trace context of the
   * request that started it) when given, else of the active span. Its status is the run's:
   * ERROR with the error code when it failed or was canceled (undefined: the run stopped here
   * without ending, e.g. at shutdown).
   */
  async traceRun<T extends RunEnd>(
    info: RunSpanInfo,
    parent: TraceCarrier | undefined,
    run: () => Promise<T>,
  ): Promise<T> {
    const base =
      parent === undefined ? context.active() : propagation.extract(ROOT_CONTEXT, parent);
    const span = this.tracer.startSpan(
      `workflow ${info.workflow}`,
      {
        attributes: {
          [ATTR.executionId]: info.executionId,
          [ATTR.workflow]: info.workflow,
          [ATTR.workflowVersion]: info.version,
          [ATTR.executionMode]: info.mode,
        },
      },
      base,
    );
    try {
      const result = await context.with(trace.setSpan(base, span), run);
      span.setAttribute(ATTR.runStatus, result?.status ?? 'detached');
      if (result !== undefined && result.status !== 'completed')
        failSpan(span, result.error?.code ?? 'INTERNAL_ERROR');
      return result;
    } catch (error) {
      failSpan(span, errorCodeOf(error));
      throw error;
    } finally {
      span.end();
    }
  }
}
