import {
  capErrorObject,
  filterEvents,
  InternalError,
  toErrorObject,
  ValidationError,
  WeftError,
  type ErrorObject,
  type StreamEvent,
} from '@weft/core';
import type { WorkflowDefinition } from '../model.js';
import { resolveInputs } from './inputs.js';
import { isoOf } from './iso.js';
import type { RunInfo } from './interceptors.js';
import { compileRunOptions, type CompiledRunOptions, type RunOptions } from './options.js';
import { planWorkflow, type StepPlan, type WorkflowPlan } from './plan.js';
import type { RunResult, RunStatus, StepRecord } from './records.js';
import { invokerOf } from './chain.js';
import { Run, type InternalRecord } from './run.js';
import { resolveSecrets, ResolvedSecrets, type FoundSecrets } from './secrets.js';
import { runStep } from './steps.js';

/**
 * Runs a validated workflow (see `loadWorkflowSource`) to its end: inputs are checked and
 * completed, secrets resolved and every action target checked before any step runs; steps run in
 * order; the outputs are evaluated and checked for secret values. Never rejects: a failure is a
 * result with status `failed` (or `canceled`) and the error object (docs/protocol.md#error-codes).
 * `onEvent` receives only the events the workflow's `execution.streaming` lets through (none
 * with `enabled: false`), its subworkflows' events included (docs/workflow-language.md#streaming);
 * `observe` receives them all.
 */
export function runWorkflow(
  workflow: WorkflowDefinition,
  inputs: Readonly<Record<string, unknown>>,
  options: RunOptions,
): Promise<RunResult> {
  const onEvent = filterEvents(workflow.execution?.streaming, options.onEvent);
  const { onEvent: _given, ...rest } = options;
  return runPlanned(workflow, inputs, compileRunOptions(onEvent ? { ...rest, onEvent } : rest), 0);
}

/**
 * {@link runWorkflow} with compiled options, at a subworkflow depth; `caller` is the run and
 * step calling a subworkflow (given when the run has interceptors); `found`, the secrets its
 * caller found by other paths than `secrets.*` (a subworkflow shares them).
 */
export async function runPlanned(
  workflow: WorkflowDefinition,
  given: Readonly<Record<string, unknown>>,
  options: CompiledRunOptions,
  depth: number,
  caller?: RunInfo['caller'],
  found?: FoundSecrets,
): Promise<RunResult> {
  const startedMs = options.clock.now();
  const plan = planWorkflow(workflow);
  const info: RunInfo | undefined = options.chain && {
    executionId: options.executionId,
    workflow,
    mode: options.executionMode,
    principal: options.principal,
    depth,
    caller,
    owner: options.owner,
    workflows: [...options.callers, workflow],
  };
  let run: Run | undefined;
  let error: WeftError | undefined;
  let outputs: Record<string, unknown> = {};
  try {
    const inputs = resolveInputs(workflow, given);
    checkTargets(plan.steps, options, info);
    const secrets = await resolveSecrets(plan.secretNames, options.secrets, found);
    // An input declared `secret: true` is masked wherever its value would be shown.
    for (const [name, spec] of Object.entries(workflow.inputs ?? {})) {
      const value = inputs[name];
      if (spec.secret === true && value !== undefined && value !== null) {
        secrets.add(`inputs.${name}`, typeof value === 'string' ? value : JSON.stringify(value));
      }
    }
    run = new Run(plan, options, inputs, secrets, depth, info);
    error = await runSteps(run, plan.steps);
    if (!options.journalWithEnd && run.journalPending) await run.durable();
    if (!error) outputs = evaluateOutputs(run, plan);
  } catch (caught) {
    error = caught instanceof WeftError ? caught : InternalError.from(caught);
  } finally {
    run?.close();
  }
  const status: RunStatus = error
    ? error.code === 'CANCELED'
      ? 'canceled'
      : 'failed'
    : 'completed';
  return finish(found, workflow, run, status, error, error ? {} : outputs, startedMs, options);
}

/** Runs steps in order; returns the error that halts the workflow, if one does. */
async function runSteps(run: Run, steps: StepPlan[]): Promise<WeftError | undefined> {
  for (const plan of steps) {
    const canceled = run.canceled;
    if (canceled) return canceled;
    const entry = await runStep(run, plan);
    run.scope.steps[plan.name] = entry;
    if (entry.status === 'failed' && !plan.continueOnError) {
      return run.canceled ?? errorOf(entry.error);
    }
  }
  return run.canceled;
}

function errorOf(object: unknown): WeftError {
  const error = object as ErrorObject;
  return new WeftError(error.code, error.message, error.details);
}

/** Evaluates the outputs; refuses any that reads or carries a secret (docs/workflow-language.md#secrets). */
function evaluateOutputs(run: Run, plan: WorkflowPlan): Record<string, unknown> {
  const outputs: Record<string, unknown> = {};
  for (const { name, value } of plan.outputs) {
    const secret = value.readsSecrets ? 'secrets' : undefined;
    const result = secret === undefined ? value.build(run.scope) : undefined;
    const carried = secret ?? run.secrets.find(result);
    if (carried !== undefined) {
      throw new ValidationError(
        `output "${name}" would expose the secret ${carried}; the run is blocked`,
        {
          field: `outputs.${name}`,
          constraint: 'no_secrets',
        },
      );
    }
    // Secrets read by other paths are masked, not blocked: no template put them there.
    outputs[name] = run.secrets.mask(result);
  }
  return outputs;
}

/**
 * Refuses, before anything runs, actions the invoker cannot serve: each action and agent target
 * goes through the chain's check hooks (when it has some) to its invoker's `check`.
 */
function checkTargets(
  steps: StepPlan[],
  options: CompiledRunOptions,
  info: RunInfo | undefined,
): void {
  const hooks = options.chain?.check;
  if (!hooks && !options.invoker.check && !options.invokerFor && !options.agents?.check) return;
  for (const plan of steps) {
    const { target, action } = plan.info;
    if (target && action !== undefined) {
      if (hooks) hooks({ target, action, step: plan.info, run: info! });
      else invokerOf(options, plan.info)?.check?.(target, action);
    }
    checkTargets(plan.children, options, info);
  }
}

/** A step's record, its fields in the order of `StepRecord`, each set only when it has one. */
function stepRecord(record: InternalRecord): StepRecord {
  const { status, output, outputs, error } = record.entry;
  const step = { status } as StepRecord;
  if (record.input !== undefined) step.input = record.input;
  if (output !== undefined) step.output = output;
  if (outputs !== undefined) step.outputs = outputs;
  if (error !== undefined) step.error = error as ErrorObject;
  step.attempts = record.attempts;
  step.started_at = isoOf(record.startedMs);
  step.finished_at = isoOf(record.finishedMs);
  step.duration_ms = record.finishedMs - record.startedMs;
  if (record.usage !== undefined) step.usage = record.usage;
  return step;
}

function finish(
  found: FoundSecrets | undefined,
  workflow: WorkflowDefinition,
  run: Run | undefined,
  status: RunStatus,
  error: WeftError | undefined,
  outputs: Record<string, unknown>,
  startedMs: number,
  options: CompiledRunOptions,
): RunResult {
  const finishedMs = options.clock.now();
  const secrets = run?.secrets ?? new ResolvedSecrets({}, found);
  const steps: Record<string, StepRecord> = {};
  for (const [name, record] of run?.records ?? []) steps[name] = secrets.mask(stepRecord(record));
  const errorObject = error
    ? capErrorObject(secrets.mask(toErrorObject(error, { includeStack: true })))
    : undefined;
  const result: RunResult = {
    execution_id: options.executionId,
    workflow: workflow.name,
    status,
    outputs,
    steps,
    ...(errorObject ? { error: errorObject } : {}),
    started_at: isoOf(startedMs),
    finished_at: isoOf(finishedMs),
    duration_ms: finishedMs - startedMs,
  };
  run?.emit('workflow.completed', '', {
    status,
    outputs,
    ...(errorObject ? { error: errorObject } : {}),
    duration_ms: result.duration_ms,
  });
  if (!run && (options.onEvent || options.observe)) {
    const event: StreamEvent = {
      type: 'workflow.completed',
      timestamp: result.finished_at,
      workflow_id: options.executionId,
      step_name: '',
      data: {
        status,
        outputs,
        ...(errorObject ? { error: errorObject } : {}),
        duration_ms: result.duration_ms,
      },
    };
    options.observe?.(event);
    options.onEvent?.(event);
  }
  return result;
}
