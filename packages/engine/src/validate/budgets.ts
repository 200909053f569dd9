import type { Path } from '../diagnostics.js';
import type { Reporter } from '../load/reporter.js';
import type { WorkflowDefinition } from '../model.js';

/**
 * Checks what the schema cannot about a workflow's `budgets` (docs/agents.md#budgets-across-runs):
 * it sets at least one limit, `maxCost` or `maxTokens`.
 */
export function checkBudgets(workflow: WorkflowDefinition, at: Path, reporter: Reporter): void {
  const budgets = workflow.budgets;
  if (budgets === undefined) return;
  if (budgets.maxCost === undefined && budgets.maxTokens === undefined) {
    reporter.error(
      [...at, 'budgets'],
      'required',
      'budgets sets no limit: give maxCost (USD), maxTokens, or both',
    );
  }
}
