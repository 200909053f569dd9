import gtVersion from 'semver/functions/gt.js';
import satisfies from 'semver/functions/satisfies.js';
import { listSteps, type WorkflowDefinition } from '../model.js';

/**
 * The workflow a subworkflow step calls: the highest version named `name` among `workflows` that
 * satisfies the step's `version` range (any version when the step pins none).
 */
export function pickWorkflow(
  workflows: Iterable<WorkflowDefinition>,
  name: string,
  range?: string,
): WorkflowDefinition | undefined {
  let best: WorkflowDefinition | undefined;
  for (const candidate of workflows) {
    if (candidate.name !== name) continue;
    if (range !== undefined && !satisfies(candidate.version, range)) continue;
    if (!best || gtVersion(candidate.version, best.version)) best = candidate;
  }
  return best;
}

/** A subworkflow call of {@link calledWorkflows}: which step asked for what. */
export interface WorkflowCall {
  /** The calling workflow and its step. */
  caller: string;
  step: string;
  name: string;
  version?: string;
  /** What `resolve` picked, when it found one. */
  called?: WorkflowDefinition;
}

/**
 * Every subworkflow call a run of `workflow` may make, transitively, each resolved by `resolve`
 * (e.g. {@link pickWorkflow} over the loaded workflows). Each workflow is walked once.
 */
export function calledWorkflows(
  workflow: WorkflowDefinition,
  resolve: (name: string, range: string | undefined) => WorkflowDefinition | undefined,
): WorkflowCall[] {
  const calls: WorkflowCall[] = [];
  const walked = new Set<WorkflowDefinition>([workflow]);
  const walk = (current: WorkflowDefinition): void => {
    for (const { step } of listSteps(current)) {
      if (step.type !== 'workflow' || step.workflow === undefined) continue;
      const called = resolve(step.workflow, step.version);
      calls.push({
        caller: current.name,
        step: step.name,
        name: step.workflow,
        ...(step.version !== undefined ? { version: step.version } : {}),
        ...(called ? { called } : {}),
      });
      if (called && !walked.has(called)) {
        walked.add(called);
        walk(called);
      }
    }
  };
  walk(workflow);
  return calls;
}
