import type { Guardrails } from '@weft/core';
import type { StepDefinition, WorkflowDefinition } from '@weft/engine';

/** The guardrails {@link guardrailsInterceptor} enforces. */
const ENFORCED = [
  'outputSchema',
  'piiDetection',
  'toxicityThreshold',
  'blockedTopics',
  'timeLimit',
];

const remembered = new WeakMap<WorkflowDefinition, boolean>();

/**
 * Whether a run of these workflows (parallel children included) needs the guardrails
 * interceptor: some step sets a guardrail it enforces, or is an agent step (whose agent may
 * set defaults). Remembered per definition object.
 */
export function needsGuardrails(workflows: Iterable<WorkflowDefinition>): boolean {
  for (const workflow of workflows) {
    let needs = remembered.get(workflow);
    if (needs === undefined) remembered.set(workflow, (needs = anyStep(workflow.steps)));
    if (needs) return true;
  }
  return false;
}

function anyStep(steps: readonly StepDefinition[]): boolean {
  for (const step of steps) {
    if (step.type === 'agent' || sets(step.guardrails)) return true;
    if (Array.isArray(step.parallel) && anyStep(step.parallel)) return true;
  }
  return false;
}

function sets(guardrails: Guardrails | undefined): boolean {
  if (guardrails === undefined) return false;
  return ENFORCED.some((name) => {
    const value = guardrails[name as keyof Guardrails];
    return value !== undefined && value !== false;
  });
}
