import { suggestion } from '@weft/core';
import {
  compileTemplate,
  hasTemplate,
  TemplateError,
  type CompiledTemplate,
  type Reference,
} from '@weft/expr';
import type { Path } from '../diagnostics.js';
import type { StepVisit } from '../model.js';
import type { WorkflowContext } from './context.js';
import { checkStepReference } from './step-references.js';

/** Where a template sits, which decides what it may read. */
export interface TemplatePlace {
  /** The step it belongs to; absent for workflow outputs. */
  visit?: StepVisit;
  /** May read `secrets.*` (only the input of action and agent steps). */
  secrets: boolean;
  /** May read `item` (only the input of a step with for_each). */
  item: boolean;
  /** Name of the place in messages, e.g. `condition` or `outputs`. */
  what: string;
}

/**
 * Compiles every template of a workflow and checks what it reads: declared inputs, earlier
 * steps, `item` inside for_each, trigger data the triggers provide, and `secrets.*` only where
 * it cannot flow into outputs or a user-visible place.
 */
export function checkTemplates(ctx: WorkflowContext): void {
  for (const visit of ctx.steps) {
    const { step, path } = visit;
    const secrets = step.type === 'action' || step.type === 'agent';
    if (step.input !== undefined) {
      checkValue(ctx, step.input, [...path, 'input'], {
        visit,
        secrets,
        item: step.for_each !== undefined,
        what: secrets ? 'input' : `the input of a ${step.type} step`,
      });
    }
    if (typeof step.condition === 'string') {
      checkString(ctx, step.condition, [...path, 'condition'], {
        visit,
        secrets: false,
        item: false,
        what: 'condition',
      });
    }
    if (typeof step.for_each === 'string') {
      checkString(ctx, step.for_each, [...path, 'for_each'], {
        visit,
        secrets: false,
        item: false,
        what: 'for_each',
      });
    }
  }
  for (const [name, output] of Object.entries(ctx.workflow.outputs ?? {})) {
    checkString(ctx, output.value, [...ctx.path, 'outputs', name, 'value'], {
      secrets: false,
      item: false,
      what: 'outputs',
    });
  }
  for (const [name, input] of Object.entries(ctx.workflow.inputs)) {
    if (typeof input.default === 'string' && hasTemplate(input.default)) {
      ctx.reporter.warning(
        [...ctx.path, 'inputs', name, 'default'],
        'data',
        'input defaults are data: this {{ }} is not evaluated',
      );
    }
  }
}

function checkValue(ctx: WorkflowContext, value: unknown, path: Path, place: TemplatePlace): void {
  if (typeof value === 'string') return checkString(ctx, value, path, place);
  if (Array.isArray(value))
    return value.forEach((item, index) => checkValue(ctx, item, [...path, index], place));
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) checkValue(ctx, item, [...path, key], place);
  }
}

function checkString(ctx: WorkflowContext, source: string, path: Path, place: TemplatePlace): void {
  if (!hasTemplate(source)) return;
  let template: CompiledTemplate;
  try {
    template = compileTemplate(source);
  } catch (error) {
    if (!(error instanceof TemplateError)) throw error;
    ctx.reporter.error(path, 'template', error.message, { offsetInValue: error.offset });
    return;
  }
  for (const ref of template.references) checkReference(ctx, ref, path, place);
}

function checkReference(
  ctx: WorkflowContext,
  ref: Reference,
  path: Path,
  place: TemplatePlace,
): void {
  const at = (message: string, code = 'reference') =>
    ctx.reporter.error(path, code, message, { offsetInValue: ref.offset });
  const [first] = ref.path;
  switch (ref.root) {
    case 'inputs': {
      if (typeof first !== 'string' || Object.hasOwn(ctx.workflow.inputs, first)) return;
      const declared = Object.keys(ctx.workflow.inputs);
      return at(
        `unknown input "${first}"${suggestion(first, declared)}${declared.length === 0 ? ' (the workflow declares no inputs)' : ''}`,
      );
    }
    case 'steps':
      return checkStepReference(ctx, ref, place, at);
    case 'item':
      if (!place.item) {
        at(
          place.visit?.step.for_each !== undefined
            ? `item is only available in the input of a for_each step, not in its ${place.what}`
            : 'item is only available inside for_each (in the input of a step that has for_each)',
        );
      }
      return;
    case 'secrets': {
      if (place.secrets) return;
      const name = typeof first === 'string' ? `secrets.${first}` : 'secrets';
      return at(
        place.what === 'outputs'
          ? `${name} would be exposed in a workflow output; pass secrets only in the input of an action or agent step`
          : `${name} cannot be used in ${place.what}: pass secrets only in the input of an action or agent step`,
        'secret_flow',
      );
    }
    case 'trigger':
      return checkTriggerReference(ctx, first, at);
    case 'env':
      return;
  }
}

function checkTriggerReference(
  ctx: WorkflowContext,
  first: string | number | undefined,
  at: (m: string) => void,
): void {
  if (first === undefined) return;
  const types = new Set((ctx.workflow.triggers ?? []).map((t) => t.type));
  if (first === 'payload') {
    // Webhooks set the body; schedule fires set `{scheduled_at}` (docs/triggers.md).
    if (!types.has('webhook') && !types.has('schedule'))
      at(
        'trigger.payload is set by a webhook trigger (the body) or a schedule trigger ({scheduled_at}), and this workflow has neither',
      );
  } else if (first === 'event') {
    if (!types.has('event'))
      at('trigger.event is only set by an event trigger, and this workflow has none');
  } else {
    at(
      `trigger has payload (webhook) and event (event trigger), not "${String(first)}"${suggestion(String(first), ['payload', 'event'])}`,
    );
  }
}
