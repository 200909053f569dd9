import {
  ValidationError,
  type JournalRow,
  type ResumedFrom,
  type StoredExecution,
} from '@weft/core';
import type { StepDefinition, WorkflowDefinition } from '@weft/engine';

/** `from: "failed"`: the step the original execution failed at. */
export const FROM_FAILED = 'failed';

/** What a rerun from a step starts with: where it resumes, and the journal it is seeded with. */
export interface ResumePlan {
  resumedFrom: ResumedFrom;
  /** The original's journal rows of the steps before `resumedFrom.step` (children included). */
  journal: JournalRow[];
}

/** The status and flags of a journaled step that deciding a resume needs. */
interface JournaledStatus {
  entry?: { status?: string; [child: string]: unknown };
}

/**
 * Plans a rerun of `original` (whose workflow is `workflow`, whose journal is `rows`) from step
 * `from` (a top-level step, or {@link FROM_FAILED}): the steps before it are taken from the
 * journal, so each must have finished there without halting the run. Throws `VALIDATION`
 * (`details.field: "from"`) naming why not: `unknown_step`, `no_failed_step`, `inside_parallel`,
 * `inside_for_each`, `earlier_step_not_reusable`.
 */
export function planResume(
  original: StoredExecution,
  workflow: WorkflowDefinition,
  rows: readonly JournalRow[],
  from: string,
): ResumePlan {
  const journaled = new Map(rows.map((row) => [row.path, row]));
  const statusOf = (path: string): string | undefined => {
    const row = journaled.get(path);
    return row && (JSON.parse(row.json) as JournaledStatus).entry?.status;
  };
  const halts = (step: StepDefinition): boolean =>
    statusOf(step.name) === 'failed' && step.continue_on_error !== true;
  const steps = workflow.steps;
  const name = from === FROM_FAILED ? failedStep(original, steps, halts, statusOf) : from;
  const index = steps.findIndex((step) => step.name === name);
  if (index < 0) throw notTopLevel(original, steps, name);
  for (const step of steps.slice(0, index)) {
    const status = statusOf(step.name);
    if (status === undefined || halts(step)) {
      throw refuse(
        `step "${step.name}" before "${name}" ${status === undefined ? 'did not finish' : 'failed'} in execution ${original.id}, so it cannot be reused: rerun from "${step.name}" or earlier`,
        'earlier_step_not_reusable',
        { step: step.name },
      );
    }
  }
  const before = new Set(steps.slice(0, index).map((step) => step.name));
  const journal = rows.filter((row) => before.has(row.path.split('/')[0]!));
  return { resumedFrom: { execution_id: original.id, step: name }, journal };
}

/** The top-level step that halted a failed execution (`no_failed_step` when none did). */
function failedStep(
  original: StoredExecution,
  steps: readonly StepDefinition[],
  halts: (step: StepDefinition) => boolean,
  statusOf: (path: string) => string | undefined,
): string {
  const failed = original.status === 'failed' ? steps.find(halts) : undefined;
  if (!failed) {
    throw refuse(
      original.status === 'failed'
        ? `execution ${original.id} failed outside its steps (its inputs or outputs), so there is no failed step to resume from; rerun it whole`
        : `execution ${original.id} has no failed step (it is ${original.status}); name the step to resume from`,
      'no_failed_step',
    );
  }
  if (Array.isArray(failed.parallel)) {
    const child = failedChild(failed, failed.name, statusOf);
    throw blockRefusal(failed, child ?? failed.name, true);
  }
  return failed.name;
}

/** The path of the first failed step inside a parallel block, deepest first. */
function failedChild(
  block: StepDefinition,
  path: string,
  statusOf: (path: string) => string | undefined,
): string | undefined {
  for (const child of Array.isArray(block.parallel) ? block.parallel : []) {
    const childPath = `${path}/${child.name}`;
    const deeper = failedChild(child, childPath, statusOf);
    if (deeper) return deeper;
    if (statusOf(childPath) === 'failed') return child.name;
  }
  return undefined;
}

/** The refusal of a step that is not a top-level step: inside a block, or unknown. */
function notTopLevel(
  original: StoredExecution,
  steps: readonly StepDefinition[],
  name: string,
): ValidationError {
  for (const step of steps) {
    if (containsStep(step, name)) return blockRefusal(step, name, false);
  }
  return refuse(
    `workflow "${original.workflow}" has no step "${name}"; its steps are ${steps.map((s) => `"${s.name}"`).join(', ')}`,
    'unknown_step',
    { step: name },
  );
}

function containsStep(block: StepDefinition, name: string): boolean {
  if (!Array.isArray(block.parallel)) return false;
  return block.parallel.some((child) => child.name === name || containsStep(child, name));
}

/**
 * The refusal of a step inside parallel block `block`: its siblings ran at the same time (and,
 * when the block has `for_each`, once per item), so they cannot be taken apart from it.
 */
function blockRefusal(block: StepDefinition, name: string, failed: boolean): ValidationError {
  const forEach = block.for_each !== undefined;
  const what = failed ? `step "${name}" failed inside` : `step "${name}" is inside`;
  const why = forEach
    ? `parallel block "${block.name}", which runs for_each item: its iterations cannot be reused`
    : `parallel block "${block.name}": its sibling steps cannot be reused`;
  return refuse(
    `${what} ${why}; rerun from "${block.name}"`,
    forEach ? 'inside_for_each' : 'inside_parallel',
    { step: name, block: block.name },
  );
}

function refuse(
  message: string,
  constraint: string,
  extra: Record<string, unknown> = {},
): ValidationError {
  return new ValidationError(message, { field: 'from', constraint, ...extra });
}
