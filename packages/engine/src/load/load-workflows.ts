import {
  suggestion,
  Trigger,
  Workflow,
  WorkflowFile,
  type Workflow as RawWorkflow,
} from '@weft/core';
import { sortDiagnostics, type Diagnostic } from '../diagnostics.js';
import { listSteps, normalizeWorkflow, type WorkflowDefinition } from '../model.js';
import type { WorkflowContext } from '../validate/context.js';
import { checkInputs } from '../validate/inputs.js';
import { isPlainObject, SchemaChecker } from '../validate/schema-check.js';
import { checkStepStructure } from '../validate/steps.js';
import {
  checkCallCycles,
  checkSubworkflows,
  type SubworkflowCall,
} from '../validate/subworkflows.js';
import { checkTemplates } from '../validate/templates.js';
import { checkTesting } from '../validate/testing.js';
import { checkTriggers, type WebhookRoutes } from '../validate/triggers.js';
import { checkWorkflowDetectors } from '../validate/guardrails.js';
import { checkBudgets } from '../validate/budgets.js';
import { compileLoadOptions, type LoadOptions } from './options.js';
import { parseWorkflowSource } from './parse-document.js';
import { Reporter } from './reporter.js';

/** What loading a workflow file gives. */
export interface LoadResult {
  /** True when there is no error (warnings allowed). */
  ok: boolean;
  /** The workflows of the file (only the selected one with `workflow`), empty unless `ok`. */
  workflows: WorkflowDefinition[];
  /** Every error and warning, ordered by position. */
  diagnostics: Diagnostic[];
}

/** The file shape without its workflows, which are checked one by one. */
const FILE_SHAPE = {
  ...WorkflowFile,
  properties: {
    ...WorkflowFile.properties,
    workflows: { ...WorkflowFile.properties.workflows, items: {} },
  },
};
const checker = new SchemaChecker(WorkflowFile);

/**
 * Loads, checks and normalizes a workflow file (YAML or JSON) and reports every problem at once:
 * syntax, schema (unknown keys with did-you-mean, types, ranges) and meaning (step identifiers,
 * references in templates, triggers, inputs, subworkflows, fixtures).
 */
export function loadWorkflowSource(
  input: string | Uint8Array,
  loadOptions: LoadOptions = {},
): LoadResult {
  const options = compileLoadOptions(loadOptions);
  const { value, reporter } = parseWorkflowSource(input, options);
  if (value === undefined) return finish(reporter, [], undefined);
  if (
    checker.check(FILE_SHAPE, value, [], reporter) > 0 ||
    !isPlainObject(value) ||
    !Array.isArray(value['workflows'])
  ) {
    return finish(reporter, [], undefined);
  }
  const raws = value['workflows'] as unknown[];
  const valid: { index: number; raw: RawWorkflow }[] = [];
  raws.forEach((raw, index) => {
    const { pruned } = checker.checkAndPrune(Workflow, raw, ['workflows', index], reporter);
    // A workflow without a steps list has its error reported already; nothing more to check.
    if (isPlainObject(pruned) && Array.isArray(pruned['steps'])) {
      valid.push({ index, raw: pruned as RawWorkflow });
    }
  });

  const siblings = new Map<string, WorkflowDefinition>();
  const defined: { index: number; workflow: WorkflowDefinition }[] = [];
  for (const { index, raw } of valid) {
    checkStepStructure(raw.steps, ['workflows', index], reporter);
    const workflow = normalizeWorkflow(raw);
    if (siblings.has(workflow.name)) {
      reporter.error(
        ['workflows', index, 'name'],
        'duplicate',
        `another workflow of this file is named "${workflow.name}"`,
      );
      continue;
    }
    siblings.set(workflow.name, workflow);
    defined.push({ index, workflow });
  }

  const routes: WebhookRoutes = new Map();
  const calls: SubworkflowCall[] = [];
  for (const { index, workflow } of defined) {
    const path = ['workflows', index];
    const ctx: WorkflowContext = {
      reporter,
      workflow,
      path,
      steps: listSteps(workflow, path),
      siblings,
      options,
    };
    checkInputs(workflow.inputs, path, reporter);
    checkWorkflowDetectors(workflow, path, options, reporter);
    checkBudgets(workflow, path, reporter);
    checkTriggers(triggersToCheck(workflow, raws[index]), path, routes, reporter);
    checkTemplates(ctx);
    calls.push(...checkSubworkflows(ctx));
    checkTesting(ctx);
  }
  checkCallCycles(calls, reporter);

  let selected = defined.map((d) => d.workflow);
  let keep: number | undefined;
  if (options.workflow !== undefined) {
    const match = defined.find((d) => d.workflow.name === options.workflow);
    if (!match) {
      const names = raws.map((w) => (isPlainObject(w) ? String(w['name']) : '')).filter(Boolean);
      reporter.error(
        [],
        'unknown_workflow',
        `no workflow named "${options.workflow}" in this file${suggestion(options.workflow, names)}; it has: ${names.join(', ')}`,
      );
      return finish(reporter, [], -1);
    }
    keep = match.index;
    selected = [match.workflow];
  }
  return finish(reporter, selected, keep);
}

/** Orders the diagnostics and keeps those of the selected workflow (and the file's own). */
function finish(
  reporter: Reporter,
  workflows: WorkflowDefinition[],
  keep: number | undefined,
): LoadResult {
  let diagnostics = reporter.diagnostics;
  if (keep !== undefined) {
    const prefix = `workflows[${keep}]`;
    diagnostics = diagnostics.filter(
      (d) =>
        !d.path.startsWith('workflows[') ||
        d.path === prefix ||
        d.path.startsWith(`${prefix}.`) ||
        d.path.startsWith(`${prefix}[`),
    );
  }
  sortDiagnostics(diagnostics);
  const ok = !diagnostics.some((d) => d.severity === 'error');
  return { ok, workflows: ok ? workflows : [], diagnostics };
}

/**
 * The triggers to check: the workflow's, or, when the schema check dropped the list for one bad
 * trigger (a misspelt `type`), each trigger of the file that is valid alone, at its own index (the
 * others are holes, which `checkTriggers` skips), so that a bad cron or time zone is reported
 * together with the other mistakes.
 */
function triggersToCheck(workflow: WorkflowDefinition, raw: unknown): Trigger[] {
  if (workflow.triggers !== undefined) return workflow.triggers;
  const list = isPlainObject(raw) ? raw['triggers'] : undefined;
  if (!Array.isArray(list)) return [];
  const kept = new Array<Trigger>(list.length);
  list.forEach((item, index) => {
    if (checker.check(Trigger, item, [], new Reporter(undefined, undefined)) === 0)
      kept[index] = item as Trigger;
  });
  return kept;
}
