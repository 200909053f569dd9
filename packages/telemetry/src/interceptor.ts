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
 * execution id (set by `WorkflowTracing.traceRun`), and per run (its `RunInfo`: a subworkflow,
 * each `for_each` item's too, is a run of its own) the span of each step that is running, by
 * path, and of each agent invocation (its tool calls are its children).
 */
export class TraceScopes {
  readonly runs = new Map<string, Context>();
  private readonly byRun = new WeakMap<RunInfo, Map<string, Context>>();

  /** The parent of a step's span: its parallel block, the step calling its run, or the run. */
  stepParent(run: RunInfo, step: StepInfo): Context {
    const block = step.parent && this.get(run, step.parent.path);
    if (block !== undefined) return block;
    if (run.caller !== undefined) {
      const { run: callerRun, step: callerStep } = run.caller;
      return this.get(callerRun, callerStep.path) ?? this.stepParent(callerRun, callerStep);
    }
    return this.runs.get(run.executionId) ?? context.active();
  }

  /** The parent of an invocation's span: the agent call a tool call is made for, or the step. */
  invocationParent(call: Invocation): Context {
    const scoped =
      (call.tool !== undefined ? this.get(call.run, agentKey(call)) : undefined) ??
      this.get(call.run, call.step.path);
    return scoped ?? this.stepParent(call.run, call.step);
  }

  set(run: RunInfo, key: string, scope: Context): void {
    let scopes = this.byRun.get(run);
    if (scopes === undefined) this.byRun.set(run, (scopes = new Map()));
    scopes.set(key, scope);
  }

  delete(run: RunInfo, key: string): void {
    this.byRun.get(run)?.delete(key);
  }

  private get(run: RunInfo, key: string): Context | undefined {
    return this.byRun.get(run)?.get(key);
  }
}

/** The key of an agent invocation (one per attempt and item) in its run's scopes. */
function agentKey(call: Invocation): string {
  return `${call.step.path}\u0000${call.attempt}\u0000${call.item ?? ''}`;
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
      scopes.set(run, step.path, trace.setSpan(parent, span));
      const ended = (status: 'success' | 'failed') => {
        scopes.delete(run, step.path);
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
      if (key !== undefined) scopes.set(call.run, key, trace.setSpan(parent, span));
      call.trace = traceCarrierOfSpan(span.spanContext());
      return next(call).then(
        (result) => {
          if (key !== undefined) scopes.delete(call.run, key);
          span.end();
          return result;
        },
        (error: unknown) => {
          if (key !== undefined) scopes.delete(call.run, key);
          failSpan(span, errorCodeOf(error));
          span.end();
          throw error;
        },
      );
    },
  };
}
