import { diffInput, type InputChangeBody } from '@weft/core';
import type { WorkflowDefinition } from '@weft/engine';

const PREFIX = 'input.properties.';

/**
 * The workflow inputs whose schema changes from `old` to `next`, by the registry's
 * breaking-change rules for an action's input (`diffInput`): an input made required or added
 * as required, its type narrowed, an enum added or losing values break; the opposite moves
 * are compatible.
 */
export function diffInputs(old: WorkflowDefinition, next: WorkflowDefinition): InputChangeBody[] {
  const out = { breaks: [], compatible: [] } as Parameters<typeof diffInput>[3];
  diffInput('inputs', inputSchema(old), inputSchema(next), out);
  const named = (breaking: boolean) => (c: { path: string; change: string }) => ({
    input: c.path.startsWith(PREFIX) ? c.path.slice(PREFIX.length) : c.path,
    change: c.change,
    breaking,
  });
  return [...out.breaks.map(named(true)), ...out.compatible.map(named(false))];
}

/** The JSON Schema of a workflow's inputs, as a step's `with` is one object. */
function inputSchema(workflow: WorkflowDefinition): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [name, spec] of Object.entries(workflow.inputs ?? {})) {
    properties[name] = {
      type: spec.type ?? 'string',
      ...(Array.isArray(spec.enum) ? { enum: spec.enum } : {}),
    };
    // An input with a default is never missing.
    if (spec.required === true && spec.default === undefined) required.push(name);
  }
  return { type: 'object', properties, required };
}
