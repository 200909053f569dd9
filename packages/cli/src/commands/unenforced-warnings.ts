import {
  compileLoadOptions,
  isPlainObject,
  listSteps,
  parseWorkflowSource,
  Reporter,
  type Diagnostic,
  type Path,
  type WorkflowDefinition,
} from '@weft/engine';
import type { LoadFlags } from '../load-files.js';
import { readInputFile } from '../read-input.js';

/** Code of the warnings about settings that weft parses and validates but does not enforce. */
export const NOT_ENFORCED = 'not_enforced';

/** Where to warn: the workflow, its index in the file, and the reporter that locates paths. */
interface Target {
  workflow: WorkflowDefinition;
  base: Path;
  reporter: Reporter;
}

/**
 * Guardrails are parsed and validated but not enforced yet: a step that sets them runs as if it
 * did not. Remove this check (and its call) once the engine enforces them.
 */
function warnGuardrails({ workflow, base, reporter }: Target): void {
  for (const { step, path } of listSteps(workflow, [...base])) {
    if (step.guardrails === undefined) continue;
    reporter.warning(
      [...path, 'guardrails'],
      NOT_ENFORCED,
      'guardrails are validated but not enforced yet: the step runs without them ' +
        '(docs/workflow-language.md#guardrails)',
      { key: true },
    );
  }
}

/** The warning checks, each removable on its own. */
const CHECKS: readonly ((target: Target) => void)[] = [warnGuardrails];

/** Whether any check could warn about `workflow` (cheap: no file is read when none can). */
function mayWarn(workflow: WorkflowDefinition): boolean {
  return listSteps(workflow).some(({ step }) => step.guardrails !== undefined);
}

/**
 * Warnings about settings of valid `workflows` (loaded from `file`) that weft does not enforce
 * yet, with their line and column. The file is read again only when there is something to say.
 */
export async function unenforcedWarnings(
  file: string,
  workflows: readonly WorkflowDefinition[],
  flags: LoadFlags,
): Promise<Diagnostic[]> {
  if (!workflows.some(mayWarn)) return [];
  const read = await readInputFile(file, flags.maxFileSize);
  const parsed = read.ok
    ? parseWorkflowSource(read.bytes, compileLoadOptions({ file, maxFileSize: flags.maxFileSize }))
    : undefined;
  const value = parsed?.value;
  const reporter = new Reporter(file, value === undefined ? undefined : parsed?.locator);
  const raws =
    isPlainObject(value) && Array.isArray(value['workflows'])
      ? (value['workflows'] as unknown[])
      : [];
  workflows.forEach((workflow, position) => {
    const index = raws.findIndex((raw) => isPlainObject(raw) && raw['name'] === workflow.name);
    const target = { workflow, base: ['workflows', index === -1 ? position : index], reporter };
    for (const check of CHECKS) check(target);
  });
  return reporter.diagnostics;
}
