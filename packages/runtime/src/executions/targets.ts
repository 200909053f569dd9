import type { ActionCall } from '@weft/core';
import { pickWorkflow, type StepDefinition, type WorkflowDefinition } from '@weft/engine';

/**
 * Every action target a run of `workflow` may call: its action steps and those of the workflows
 * its subworkflow steps call (from `library`), without repeats. Checked at every start: a walk
 * of the steps that allocates only for a target not seen yet (a 1,000-step workflow calling one
 * plugin makes one).
 */
export function actionTargets(
  workflow: WorkflowDefinition,
  library: readonly WorkflowDefinition[],
): ActionCall['target'][] {
  const plugins = new Set<string>();
  const connectors = new Set<string>();
  const targets: ActionCall['target'][] = [];
  const visited = new Set<WorkflowDefinition>();
  const visitSteps = (steps: readonly StepDefinition[]): void => {
    for (const step of steps) {
      if (step.type === 'workflow' && step.workflow !== undefined) {
        const called = pickWorkflow(library, step.workflow, step.version);
        if (called) visitWorkflow(called);
      } else if (step.type === 'action') {
        const { connector, plugin } = step;
        if (connector !== undefined) {
          if (!connectors.has(connector)) {
            connectors.add(connector);
            targets.push({ kind: 'connector', ref: connector });
          }
        } else if (plugin !== undefined && !plugins.has(plugin)) {
          plugins.add(plugin);
          targets.push({ kind: 'plugin', slug: plugin });
        }
      }
      // Parallel children come right after their block, as `listSteps` lists them.
      if (Array.isArray(step.parallel)) visitSteps(step.parallel);
    }
  };
  const visitWorkflow = (current: WorkflowDefinition): void => {
    if (visited.has(current)) return;
    visited.add(current);
    visitSteps(current.steps);
  };
  visitWorkflow(workflow);
  return targets;
}
