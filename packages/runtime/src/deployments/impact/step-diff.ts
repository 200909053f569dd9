import type { ExecutionChangeBody, StepChangeBody } from '@weft/core';
import { listSteps, type StepDefinition, type WorkflowDefinition } from '@weft/engine';

/** A step of a revision as the impact check compares it. */
interface Placed {
  name: string;
  /** Its place: indices from the top, `2` or `2.0` for a block's first child. */
  at: string;
  /** Index of the top-level step it is or sits in. */
  order: number;
  /** Its type and what it calls: `action connector:acme/crm@1.0.0 get`. */
  what: string;
}

/** The step changes from the revision `old` to `next` (docs/workflow-language.md#upgrading-safely). */
export function diffSteps(old: WorkflowDefinition, next: WorkflowDefinition): StepChangeBody[] {
  const before = placed(old);
  const after = placed(next);
  const renames = renamesOf(before, after);
  const afterNames = new Set(after.map((s) => s.name));
  const beforeNames = new Set(before.map((s) => s.name));
  const out: StepChangeBody[] = [];
  for (const step of before) {
    const to = renames.get(step.name);
    if (to !== undefined) out.push({ change: 'renamed', step: step.name, to });
    else if (!afterNames.has(step.name)) out.push({ change: 'removed', step: step.name });
  }
  for (const name of movedSteps(before, after)) out.push({ change: 'moved', step: name });
  const renamedTo = new Set(renames.values());
  for (const step of after) {
    if (!beforeNames.has(step.name) && !renamedTo.has(step.name))
      out.push({ change: 'added', step: step.name });
  }
  return out;
}

/**
 * What `next` changes of the steps an execution of `old` has not finished (`done`: the names of
 * the top-level steps it finished, from its journal): a remaining step removed or renamed, and a
 * remaining step that now comes before one it already finished (it would be skipped).
 */
export function remainingStepChanges(
  old: WorkflowDefinition,
  next: WorkflowDefinition,
  done: ReadonlySet<string>,
): Omit<ExecutionChangeBody, 'introduced'>[] {
  const before = placed(old);
  const after = placed(next);
  const renames = renamesOf(before, after);
  const afterByName = new Map(after.map((s) => [s.name, s]));
  const finishedTops = new Set(
    before.filter((s) => !s.at.includes('.') && done.has(s.name)).map((s) => s.order),
  );
  const remaining = before.filter((s) => !finishedTops.has(s.order));
  const lastDone = Math.max(
    -1,
    ...before
      .filter((s) => finishedTops.has(s.order))
      .map((s) => afterByName.get(s.name)?.order ?? -1),
  );
  const out: Omit<ExecutionChangeBody, 'introduced'>[] = [];
  for (const step of remaining) {
    const to = renames.get(step.name);
    const now = afterByName.get(step.name);
    if (to !== undefined) {
      out.push({
        change: 'step_renamed',
        step: step.name,
        detail: `step "${step.name}" is renamed "${to}"`,
      });
    } else if (!now) {
      out.push({
        change: 'step_removed',
        step: step.name,
        detail: `step "${step.name}" is removed`,
      });
    } else if (now.order < lastDone) {
      out.push({
        change: 'step_moved_before',
        step: step.name,
        detail: `step "${step.name}" moves before a step this run already finished`,
      });
    }
  }
  return out;
}

/** The first top-level step of `workflow` an execution has not finished; null when none. */
export function nextStepOf(workflow: WorkflowDefinition, done: ReadonlySet<string>): string | null {
  return workflow.steps.find((s) => !done.has(s.name))?.name ?? null;
}

/**
 * Renamed steps, old name → new name: at the same place, of the same type and target, with a
 * name the other revision does not have.
 */
function renamesOf(before: Placed[], after: Placed[]): Map<string, string> {
  const beforeNames = new Set(before.map((s) => s.name));
  const afterNames = new Set(after.map((s) => s.name));
  const afterAt = new Map(after.map((s) => [s.at, s]));
  const renames = new Map<string, string>();
  for (const step of before) {
    if (afterNames.has(step.name)) continue;
    const there = afterAt.get(step.at);
    if (there && !beforeNames.has(there.name) && there.what === step.what)
      renames.set(step.name, there.name);
  }
  return renames;
}

/**
 * The top-level steps in both revisions that changed place among the others: those outside the
 * longest run of them kept in the same order.
 */
function movedSteps(before: Placed[], after: Placed[]): string[] {
  const tops = (steps: Placed[]) => steps.filter((s) => !s.at.includes('.')).map((s) => s.name);
  const afterTops = tops(after);
  const beforeTops = tops(before);
  const a = beforeTops.filter((name) => afterTops.includes(name));
  const b = afterTops.filter((name) => a.includes(name));
  // Longest common subsequence, by the usual table.
  const table = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      table[i]![j] =
        a[i] === b[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
    }
  }
  const kept = new Set<string>();
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    if (a[i] === b[j]) {
      kept.add(a[i]!);
      i++;
      j++;
    } else if (table[i + 1]![j]! >= table[i]![j + 1]!) i++;
    else j++;
  }
  return a.filter((name) => !kept.has(name));
}

function placed(workflow: WorkflowDefinition): Placed[] {
  return listSteps(workflow).map(({ step, path, order }) => ({
    name: step.name,
    at: path.filter((p): p is number => typeof p === 'number').join('.'),
    order,
    what: targetOf(step),
  }));
}

/** A step's type and what it calls. */
function targetOf(step: StepDefinition): string {
  const target =
    step.connector ??
    (step.plugin !== undefined ? `plugin:${step.plugin}` : undefined) ??
    step.agent ??
    (step.workflow !== undefined ? `workflow:${step.workflow}` : '');
  return `${step.type} ${target} ${step.action ?? ''}`;
}
