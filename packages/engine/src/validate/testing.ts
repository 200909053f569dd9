import { suggestion } from '@weft/core';
import { describeValue } from '../diagnostics.js';
import type { WorkflowContext } from './context.js';
import { matchesInputType } from './inputs.js';
import { listSteps, type StepVisit } from '../model.js';
import { mockAnswers } from '../run/dry-run.js';
import { checkFixtureSteps } from '../fixtures/file.js';

/**
 * Checks the testing block: fixture names are unique, fixture inputs are declared, of the right
 * type and complete, expected outputs are declared outputs, and mocked connectors are used.
 */
export function checkTesting(ctx: WorkflowContext): void {
  const testing = ctx.workflow.testing;
  if (!testing) return;
  const base = [...ctx.path, 'testing'];
  const inputs = ctx.workflow.inputs;
  const outputs = Object.keys(ctx.workflow.outputs ?? {});
  const names = new Set<string>();
  testing.fixtures?.forEach((fixture, index) => {
    const at = [...base, 'fixtures', index];
    if (names.has(fixture.name))
      ctx.reporter.error([...at, 'name'], 'duplicate', `duplicate fixture name "${fixture.name}"`);
    names.add(fixture.name);
    for (const [key, value] of Object.entries(fixture.inputs ?? {})) {
      const spec = inputs[key];
      if (!spec) {
        ctx.reporter.error(
          [...at, 'inputs', key],
          'unknown_input',
          `unknown input "${key}"${suggestion(key, Object.keys(inputs))}`,
          { key: true },
        );
      } else if (!fixture.secretInputs?.includes(key) && !matchesInputType(spec.type, value)) {
        ctx.reporter.error(
          [...at, 'inputs', key],
          'type',
          `input "${key}" is a ${spec.type}, found ${describeValue(value)}`,
          { expected: `a ${spec.type}`, found: describeValue(value) },
        );
      }
    }
    for (const [key, spec] of Object.entries(inputs)) {
      if (
        spec.required &&
        spec.default === undefined &&
        !Object.hasOwn(fixture.inputs ?? {}, key)
      ) {
        ctx.reporter.error(
          at,
          'required',
          `fixture "${fixture.name}" lacks the required input "${key}"`,
          { expected: `inputs.${key}`, found: 'none' },
        );
      }
    }
    checkFixtureSteps(ctx.workflow, fixture, at, ctx.reporter);
    for (const key of Object.keys(fixture.expectedOutputs ?? {})) {
      if (!outputs.includes(key)) {
        ctx.reporter.error(
          [...at, 'expectedOutputs', key],
          'unknown_output',
          `the workflow has no output "${key}"${suggestion(key, outputs)}`,
          { key: true },
        );
      }
    }
  });
  const used = new Map<string, Set<string>>();
  for (const { step } of stepsWithCalled(ctx)) {
    const owner = step.connector ?? step.plugin ?? step.agent;
    if (owner === undefined) continue;
    if (!used.has(owner)) used.set(owner, new Set());
    if (step.action !== undefined) used.get(owner)!.add(step.action);
  }
  for (const [owner, actions] of Object.entries(testing.dryRun?.mockData ?? {})) {
    const at = [...base, 'dryRun', 'mockData', owner];
    const usedActions = usedBy(used, owner);
    if (!usedActions) {
      ctx.reporter.warning(
        at,
        'unused',
        `no step uses "${owner}"${suggestion(owner, used.keys())}`,
        { key: true },
      );
      continue;
    }
    for (const action of Object.keys(actions)) {
      if (usedActions.size > 0 && !usedActions.has(action)) {
        ctx.reporter.warning(
          [...at, action],
          'unused',
          `no step calls ${owner} action "${action}"${suggestion(action, usedActions)}`,
          { key: true },
        );
      }
    }
  }
}

/**
 * The actions called of the steps a `mockData` key answers ({@link mockAnswers}: the key itself,
 * or the same connector by slug or by reference), or undefined when it answers no step.
 */
function usedBy(used: Map<string, Set<string>>, key: string): Set<string> | undefined {
  let actions: Set<string> | undefined;
  for (const [owner, called] of used) {
    if (!mockAnswers(key, owner)) continue;
    actions ??= new Set();
    for (const action of called) actions.add(action);
  }
  return actions;
}

/** The steps of the workflow and of the workflows of the file it calls, transitively. */
function stepsWithCalled(ctx: WorkflowContext): StepVisit[] {
  const seen = new Set([ctx.workflow.name]);
  const out = [...ctx.steps];
  for (let i = 0; i < out.length; i++) {
    const called = out[i]!.step.workflow;
    const workflow = called === undefined ? undefined : ctx.siblings.get(called);
    if (!workflow || seen.has(workflow.name)) continue;
    seen.add(workflow.name);
    out.push(...listSteps(workflow));
  }
  return out;
}
