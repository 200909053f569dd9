import { context, SpanKind, trace, type Context, type Tracer } from '@opentelemetry/api';
import { parseConnectorRef, type ActionCall } from '@weft/core';
import type {
  Invocation,
  RunInfo,
  RunInterceptor,
  StepCall,
  StepInfo,
  StepOutcome,
} from '@weft/engine';
import { ATTR } from './attributes.js';
import { errorCodeOf, failSpan } from './errors.js';
import { traceCarrierOfSpan } from './propagation.js';

/**
 * `plugin` of a target: the slug, or the `namespace/name` of a `connector:` reference (a
 * malformed one, which validation keeps from running, as it is written).
 */
export function pluginName(target: ActionCall['target']): string {
  if (target.kind === 'plugin') return target.slug;
  const ref = parseConnectorRef(target.ref);
  return ref ? `${ref.namespace}/${ref.name}` : target.ref;
}

/**
 * The contexts of what is running, by which a span finds its parent: the run's span by
 * execution id (set by `WorkflowTracing.traceRun`), and the span of each step that is running
 * and of each agent invocation (its tool calls are its children), keyed by execution id (a
 * subworkflow's is `<parent id>/<step path>`) and path: an agent invocation's `run` is a copy
 * of its run's `RunInfo`, so the object cannot be the key.
 */
export class TraceScopes {
  readonly runs = new Map<string, Context>();
  private readonly scopes = new Map<string, Context>();

  /** The parent of a step's span: its parallel block, the step calling its run, or the run. */
  stepParent(run: RunInfo, step: StepInfo): Context {
    if (step.parent !== undefined) {
      const block = this.scopes.get(stepKey(run, step.parent));
      if (block !== undefined) return block;
    }
    if (run.caller !== undefined) return this.callerParent(run.caller.run, run.caller.step);
    return this.runs.get(run.executionId) ?? context.active();
  }

  /** The parent of an invocation's span: the agent call a tool call is made for, or the step. */
  invocationParent(call: Invocation): Context {
    const scoped =
      (call.tool !== undefined ? this.scopes.get(agentKey(call)) : undefined) ??
      this.scopes.get(stepKey(call.run, call.step));
    return scoped ?? this.stepParent(call.run, call.step);
  }

  set(key: string, scope: Context): void {
    this.scopes.set(key, scope);
  }

  delete(key: string): void {
    this.scopes.delete(key);
  }

  /** A subworkflow's steps nest under the step that calls it. */
  private callerParent(run: RunInfo, step: StepInfo): Context {
    return this.scopes.get(stepKey(run, step)) ?? this.stepParent(run, step);
  }
}

/** The key of a running step in {@link TraceScopes}. */
function stepKey(run: RunInfo, step: StepInfo): string {
  return `${run.executionId}\u0000${step.path}`;
}

/** The key of an agent invocation (one per attempt and item) in {@link TraceScopes}. */
function agentKey(call: Invocation): string {
  return `${call.run.executionId}\u0000${call.step.path}\u0000${call.attempt}\u0000${call.item ?? ''}`;
}

/**
 * The engine interceptor that traces a run: a span `step <path>` around each step that runs
 * (all its attempts and items) and a CLIENT span `action <plugin>.<action>` around each
 * invocation, whose trace context goes on the call (`ActionCall.trace`) for the invoker to send
 * on (HTTP headers, broker message headers) or make active around in-process code. Each span
 * finds its parent in `scopes` (see {@link TraceScopes}) rather than in an active context: the
 * `AsyncLocalStorage` behind one costs every promise of the process an async hook (issue 32
 * measured 7% of a server's CPU per execution). Install it only when tracing is on: without it
 * a run has no tracing cost at all.
 */
export function tracingInterceptor(
  tracer: Tracer,
  scopes: TraceScopes = new TraceScopes(),
): RunInterceptor {
  return {
    name: 'tracing',
    step(call: StepCall, next: () => Promise<StepOutcome>): Promise<StepOutcome> {
      const { run, step } = call;
      const parent = scopes.stepParent(run, step);
      const span = tracer.startSpan(
        `step ${step.path}`,
        {
          attributes: {
            [ATTR.executionId]: run.executionId,
            [ATTR.stepId]: step.path,
            [ATTR.stepKind]: step.kind,
          },
        },
        parent,
      );
      const key = stepKey(run, step);
      scopes.set(key, trace.setSpan(parent, span));
      const ended = (status: 'success' | 'failed') => {
        scopes.delete(key);
        span.setAttributes({ [ATTR.stepStatus]: status, [ATTR.stepAttempts]: call.attempts });
        span.end();
      };
      return next().then(
        (outcome) => {
          ended('success');
          return outcome;
        },
        (error: unknown) => {
          failSpan(span, errorCodeOf(error));
          ended('failed');
          throw error;
        },
      );
    },
    invoke(call: Invocation, next) {
      const plugin = pluginName(call.target);
      const attributes: Record<string, string | number> = {
        [ATTR.executionId]: call.run.executionId,
        [ATTR.stepId]: call.step.path,
        [ATTR.plugin]: plugin,
        [ATTR.action]: call.action,
        [ATTR.attempt]: call.attempt,
      };
      if (call.item !== undefined) attributes[ATTR.item] = call.item;
      const parent = scopes.invocationParent(call);
      const span = tracer.startSpan(
        `action ${plugin}.${call.action}`,
        { kind: SpanKind.CLIENT, attributes },
        parent,
      );
      // An agent's tool calls are invocations of its step and attempt: they nest under it.
      const key =
        call.step.kind === 'agent' && call.tool === undefined ? agentKey(call) : undefined;
      if (key !== undefined) scopes.set(key, trace.setSpan(parent, span));
      call.trace = traceCarrierOfSpan(span.spanContext());
      return next(call).then(
        (result) => {
          if (key !== undefined) scopes.delete(key);
          span.end();
          return result;
        },
        (error: unknown) => {
          if (key !== undefined) scopes.delete(key);
          failSpan(span, errorCodeOf(error));
          span.end();
          throw error;
        },
      );
    },
  };
}
