import { suggestion } from '@weft/core';
import type { Reference } from '@weft/expr';
import type { StepDefinition } from '../model.js';
import type { WorkflowContext } from './context.js';
import type { TemplatePlace } from './templates.js';

const RESULT_FIELDS = ['output', 'status', 'error'];

/**
 * Checks a `steps.<id>...` reference: the step exists, has finished before the place that reads
 * it (an earlier step, not itself, not a sibling in the same parallel block), parallel children
 * are read through their block, and the field read exists (`outputs` only on subworkflows).
 */
export function checkStepReference(
  ctx: WorkflowContext,
  ref: Reference,
  place: TemplatePlace,
  at: (message: string) => void,
): void {
  const [name, ...rest] = ref.path;
  if (typeof name !== 'string') return;
  const target = ctx.steps.find((v) => v.step.name === name);
  if (!target) {
    const names = ctx.steps.filter((v) => v.parents.length === 0).map((v) => v.step.name);
    return at(`unknown step "${name}"${suggestion(name, names)}`);
  }
  if (target.parents.length > 0) {
    const chain = [...target.parents.map((p) => p.name), name].join('.');
    return at(`step "${name}" runs inside a parallel block: read it as steps.${chain}`);
  }
  const self = place.visit;
  if (self) {
    if (target.step === self.step) return at(`step "${name}" cannot read its own result`);
    if (self.parents.includes(target.step)) {
      return at(`"${name}" is the parallel block this step runs in: it has not finished yet`);
    }
    if (target.order > self.order) return at(`step "${name}" runs after this one`);
  }
  checkFields(ctx, target.step, rest, name, at);
}

function checkFields(
  ctx: WorkflowContext,
  step: StepDefinition,
  rest: readonly (string | number)[],
  label: string,
  at: (message: string) => void,
): void {
  const [field, next] = rest;
  if (typeof field !== 'string') return;
  if (Array.isArray(step.parallel)) {
    const child = step.parallel.find((c) => c.name === field);
    if (child) return checkFields(ctx, child, rest.slice(1), `${label}.${field}`, at);
    if (RESULT_FIELDS.includes(field)) return;
    const children = step.parallel.map((c) => c.name);
    return at(
      `"${label}" is a parallel block with children ${children.join(', ')}: read one as steps.${label}.<child>.output${suggestion(field, children)}`,
    );
  }
  if (step.type === 'workflow') {
    if (field === 'output')
      return at(`a subworkflow's results are read as steps.${label}.outputs.<name>`);
    if (field === 'outputs') return checkSubworkflowOutput(ctx, step, next, at);
  }
  if (RESULT_FIELDS.includes(field)) return;
  const fields = step.type === 'workflow' ? ['outputs', 'status', 'error'] : RESULT_FIELDS;
  at(`steps.${label} has ${fields.join(', ')}, not "${field}"${suggestion(field, fields)}`);
}

function checkSubworkflowOutput(
  ctx: WorkflowContext,
  step: StepDefinition,
  name: string | number | undefined,
  at: (message: string) => void,
): void {
  const called = step.workflow === undefined ? undefined : ctx.siblings.get(step.workflow);
  if (!called || typeof name !== 'string') return;
  const outputs = Object.keys(called.outputs ?? {});
  if (!outputs.includes(name)) {
    at(
      outputs.length === 0
        ? `workflow "${called.name}" declares no outputs`
        : `workflow "${called.name}" has no output "${name}"${suggestion(name, outputs)}`,
    );
  }
}
