import { backoffDelay, type ActionCall, type RetrySpec } from '@weft/core';
import { compileTemplate, hasTemplate, type CompiledTemplate } from '@weft/expr';
import type { StepDefinition, WorkflowDefinition } from '../model.js';
import type { StepInfo } from './interceptors.js';
import { compileValue, type ValueBuilder } from './value-builder.js';

/** How a step retries: attempts in all, and the delay before attempt n+1. */
export interface RetryPlan {
  maxAttempts: number;
  backoff: 'exponential' | 'fixed';
  /** First delay in milliseconds. */
  firstDelayMs: number;
}

/** A step compiled once: templates compiled, defaults resolved. */
export interface StepPlan {
  def: StepDefinition;
  name: string;
  /** Path used in idempotency keys and event names: `step`, `block/child`. */
  path: string;
  input: ValueBuilder | undefined;
  /** The input as records show it (templates reading secrets build to `***`), when it reads some. */
  shownInput: ValueBuilder | undefined;
  condition: CompiledTemplate | boolean | undefined;
  forEach: CompiledTemplate | readonly unknown[] | undefined;
  parallelItems: boolean;
  children: StepPlan[];
  retry: RetryPlan | undefined;
  timeoutMs: number | undefined;
  continueOnError: boolean;
  target: ActionCall['target'] | undefined;
  /** The parallel block holding this step. */
  parent: StepPlan | undefined;
  /** Who the step is, as interceptors see it. */
  info: StepInfo;
}

/** A workflow compiled once: its steps and output templates. */
export interface WorkflowPlan {
  workflow: WorkflowDefinition;
  steps: StepPlan[];
  outputs: { name: string; value: ValueBuilder }[];
  /** Every secret any template of the workflow reads. */
  secretNames: Set<string>;
}

const plans = new WeakMap<WorkflowDefinition, WorkflowPlan>();

/** Compiles a validated workflow (cached per definition object). */
export function planWorkflow(workflow: WorkflowDefinition): WorkflowPlan {
  let plan = plans.get(workflow);
  if (!plan) {
    const secretNames = new Set<string>();
    const steps = workflow.steps.map((s) => planStep(s, undefined, secretNames));
    const outputs = Object.entries(workflow.outputs ?? {}).map(([name, spec]) => ({
      name,
      value: compileValue(spec.value),
    }));
    plan = { workflow, steps, outputs, secretNames };
    plans.set(workflow, plan);
  }
  return plan;
}

function planStep(
  def: StepDefinition,
  parent: StepPlan | undefined,
  secretNames: Set<string>,
): StepPlan {
  const path = parent === undefined ? def.name : `${parent.path}/${def.name}`;
  collectSecrets(def.input, secretNames);
  const target: ActionCall['target'] | undefined =
    def.agent !== undefined
      ? { kind: 'connector', ref: def.agent }
      : def.connector !== undefined
        ? { kind: 'connector', ref: def.connector }
        : def.plugin !== undefined
          ? { kind: 'plugin', slug: def.plugin }
          : undefined;
  const input = def.input === undefined ? undefined : compileValue(def.input);
  const plan: StepPlan = {
    def,
    name: def.name,
    path,
    input,
    shownInput: input?.readsSecrets ? compileValue(def.input, true) : undefined,
    condition: typeof def.condition === 'string' ? compileTemplate(def.condition) : def.condition,
    forEach: typeof def.for_each === 'string' ? compileTemplate(def.for_each) : def.for_each,
    parallelItems: def.parallel === true,
    children: [],
    retry: def.retry ? planRetry(def.retry) : undefined,
    timeoutMs: attemptTimeoutMs(def),
    continueOnError: def.continue_on_error === true,
    target,
    parent,
    info: {
      path,
      name: def.name,
      kind: def.type,
      target,
      action: def.type === 'agent' ? 'run' : target ? def.action : undefined,
      definition: def,
      parent: parent?.info,
    },
  };
  if (Array.isArray(def.parallel))
    plan.children = def.parallel.map((c) => planStep(c, plan, secretNames));
  return plan;
}

/**
 * The bound of each attempt, in ms: the step's `timeout`, else its `runtime.resources.timeout`
 * (docs/workflow-language.md#connector-runtime); `undefined` leaves it to the connector's.
 */
function attemptTimeoutMs(def: StepDefinition): number | undefined {
  const seconds = def.timeout ?? def.runtime?.resources?.timeout;
  return seconds === undefined ? undefined : seconds * 1000;
}

/** Fills the defaults of a retry block (docs/design.md#workflow-semantics: factor 1 s, exponential). */
export function planRetry(spec: RetrySpec): RetryPlan {
  return {
    maxAttempts: spec.max_attempts ?? 1,
    backoff: spec.backoff ?? 'exponential',
    firstDelayMs: (spec.backoff_factor ?? 1) * 1000,
  };
}

/** Delay before the attempt after `failures` failed ones. */
export function retryDelayMs(retry: RetryPlan, failures: number): number {
  const factor = retry.backoff === 'fixed' ? 1 : 2;
  return backoffDelay(failures, { initialMs: retry.firstDelayMs, factor });
}

function collectSecrets(value: unknown, into: Set<string>): void {
  if (typeof value === 'string') {
    if (!hasTemplate(value)) return;
    for (const ref of compileTemplate(value).references) {
      if (ref.root === 'secrets' && typeof ref.path[0] === 'string') into.add(ref.path[0]);
    }
  } else if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) collectSecrets(item, into);
  }
}
