import { addUsage, fromErrorObject, TimeoutError, ValidationError } from '@weft/core';
import type { StepPlan } from './plan.js';
import type { Run, StepTally } from './run.js';
import { runPlanned } from './run-workflow.js';
import { abortOf, abortSignals } from './step-scope.js';

/** How deep subworkflows may nest at run time. */
export const MAX_SUBWORKFLOW_DEPTH = 16;

/**
 * A subworkflow step: runs the called workflow with the step's input as its inputs, in the same
 * execution (events and action idempotency keys carry the step path), and gives its outputs.
 * The step's `timeout` bounds the whole call; cancellation, and an interceptor aborting the step,
 * reach it. The usage its steps reported is the step's.
 */
export async function runSubworkflow(
  run: Run,
  plan: StepPlan,
  record: StepTally,
): Promise<Record<string, unknown>> {
  const name = plan.def.workflow!;
  const called = run.options.resolveWorkflow?.(name, plan.def.version);
  if (!called) {
    throw new ValidationError(
      `workflow "${name}"${plan.def.version ? ` (${plan.def.version})` : ''} called by step "${plan.path}" is not loaded`,
      { field: `steps.${plan.path}.workflow`, constraint: 'exists' },
    );
  }
  if (run.depth >= MAX_SUBWORKFLOW_DEPTH) {
    throw new ValidationError(
      `subworkflows nest deeper than ${MAX_SUBWORKFLOW_DEPTH} levels at step "${plan.path}"`,
      {
        field: `steps.${plan.path}.workflow`,
        constraint: 'depth',
      },
    );
  }
  record.attempts++;
  const signals = [
    run.options.signal,
    plan.timeoutMs ? AbortSignal.timeout(plan.timeoutMs) : undefined,
    ...abortSignals(run, plan),
  ];
  const active = signals.filter((s): s is AbortSignal => s !== undefined);
  const started = run.now();
  const onEvent = run.options.onEvent;
  const result = await runPlanned(
    called,
    (plan.input?.build(run.scope) ?? {}) as Record<string, unknown>,
    {
      ...run.options,
      executionId: `${run.options.executionId}/${plan.path}`,
      signal:
        active.length === 0 ? undefined : active.length === 1 ? active[0] : AbortSignal.any(active),
      // Its steps are steps of this one, under its path; its end is this step's end.
      onEvent:
        onEvent &&
        ((event) => {
          if (event.type !== 'workflow.completed')
            onEvent({ ...event, step_name: `${plan.path}/${event.step_name}` });
        }),
      // The called workflow is one step of this execution: journaled as a whole, not inside.
      journal: undefined,
      onStepFinished: undefined,
      callers: run.lineage,
    },
    run.depth + 1,
    run.info && { run: run.info, step: plan.info },
    run.secrets.found,
  );
  for (const step of Object.values(result.steps))
    if (step.usage) record.usage = addUsage(record.usage, step.usage);
  const aborted = run.aborted && abortOf(run, plan);
  if (aborted) throw aborted;
  if (result.status === 'completed') return result.outputs;
  if (result.status === 'canceled' && !run.options.signal?.aborted && plan.timeoutMs) {
    throw new TimeoutError(`subworkflow step "${plan.path}" timed out after ${plan.timeoutMs} ms`, {
      timeout_ms: plan.timeoutMs,
      elapsed_ms: run.now() - started,
    });
  }
  throw fromErrorObject(result.error);
}
