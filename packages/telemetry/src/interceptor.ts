import { context, SpanKind, trace, type Tracer } from '@opentelemetry/api';
import { parseConnectorRef, type ActionCall } from '@weft/core';
import type { Invocation, RunInterceptor, StepCall, StepOutcome } from '@weft/engine';
import { ATTR } from './attributes.js';
import { errorCodeOf, failSpan } from './errors.js';

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
 * The engine interceptor that traces a run: a span `step <path>` around each step that runs
 * (all its attempts and items) and a CLIENT span `action <plugin>.<action>` around each
 * invocation, each made active while it runs, so the invoker's HTTP call or broker message
 * carries its `traceparent` and a subworkflow's steps nest under the step that calls it.
 * Install it only when tracing is on: without it a run has no tracing cost at all.
 */
export function tracingInterceptor(tracer: Tracer): RunInterceptor {
  return {
    name: 'tracing',
    step(call: StepCall, next: () => Promise<StepOutcome>): Promise<StepOutcome> {
      const parent = context.active();
      const span = tracer.startSpan(
        `step ${call.step.path}`,
        {
          attributes: {
            [ATTR.executionId]: call.run.executionId,
            [ATTR.stepId]: call.step.path,
            [ATTR.stepKind]: call.step.kind,
          },
        },
        parent,
      );
      return context.with(trace.setSpan(parent, span), next).then(
        (outcome) => {
          span.setAttribute(ATTR.stepStatus, 'success');
          span.setAttribute(ATTR.stepAttempts, call.attempts);
          span.end();
          return outcome;
        },
        (error: unknown) => {
          span.setAttribute(ATTR.stepStatus, 'failed');
          span.setAttribute(ATTR.stepAttempts, call.attempts);
          failSpan(span, errorCodeOf(error));
          span.end();
          throw error;
        },
      );
    },
    invoke(call: Invocation, next) {
      const parent = context.active();
      const plugin = pluginName(call.target);
      const attributes: Record<string, string | number> = {
        [ATTR.executionId]: call.run.executionId,
        [ATTR.stepId]: call.step.path,
        [ATTR.plugin]: plugin,
        [ATTR.action]: call.action,
        [ATTR.attempt]: call.attempt,
      };
      if (call.item !== undefined) attributes[ATTR.item] = call.item;
      const span = tracer.startSpan(
        `action ${plugin}.${call.action}`,
        { kind: SpanKind.CLIENT, attributes },
        parent,
      );
      return context.with(trace.setSpan(parent, span), next, undefined, call).then(
        (result) => {
          span.end();
          return result;
        },
        (error: unknown) => {
          failSpan(span, errorCodeOf(error));
          span.end();
          throw error;
        },
      );
    },
  };
}
