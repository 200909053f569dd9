import type { ActionCall } from '@weft/core';
import { listSteps, pickWorkflow, type WorkflowDefinition } from '@weft/engine';

/**
 * Every action target a run of `workflow` may call: its action steps and those of the workflows
 * its subworkflow steps call (from `library`), without repeats.
 */
export function actionTargets(
  workflow: WorkflowDefinition,
  library: readonly WorkflowDefinition[],
): ActionCall['target'][] {
  const seen = new Set<string>();
  const targets: ActionCall['target'][] = [];
  const visited = new Set<WorkflowDefinition>();
  const visit = (current: WorkflowDefinition): void => {
    if (visited.has(current)) return;
    visited.add(current);
    for (const { step } of listSteps(current)) {
      if (step.type === 'workflow' && step.workflow !== undefined) {
        const called = pickWorkflow(library, step.workflow, step.version);
        if (called) visit(called);
        continue;
      }
      if (step.type !== 'action') continue;
      const target: ActionCall['target'] | undefined =
        step.connector !== undefined
          ? { kind: 'connector', ref: step.connector }
          : step.plugin !== undefined
            ? { kind: 'plugin', slug: step.plugin }
            : undefined;
      if (!target) continue;
      const key = target.kind === 'plugin' ? `p:${target.slug}` : `c:${target.ref}`;
      if (seen.has(key)) continue;
      seen.add(key);
      targets.push(target);
    }
  };
  visit(workflow);
  return targets;
}
