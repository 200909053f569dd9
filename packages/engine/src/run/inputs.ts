import { suggestion, ValidationError, type InputType } from '@weft/core';
import { describeValue } from '../diagnostics.js';
import type { WorkflowDefinition } from '../model.js';
import { matchesInputType } from '../validate/inputs.js';

/**
 * Checks and completes the inputs of a run before any step: unknown names, `type` (strings, as
 * the CLI gives them, are coerced: `"42"` to a number, `"true"` to a boolean, JSON text to an
 * object or array; numbers and booleans to a string), `enum`, `required` and `default`. Throws a
 * `VALIDATION` error with `details {field, constraint}` on the first problem.
 */
export function resolveInputs(
  workflow: Pick<WorkflowDefinition, 'inputs'>,
  given: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const declared = workflow.inputs;
  for (const name of Object.keys(given)) {
    if (!Object.hasOwn(declared, name)) {
      const names = Object.keys(declared);
      throw new ValidationError(
        `unknown input "${name}"${suggestion(name, names)}; the workflow declares ${names.length > 0 ? names.join(', ') : 'no inputs'}`,
        { field: `inputs.${name}`, constraint: 'unknown' },
      );
    }
  }
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(declared)) {
    const present = Object.hasOwn(given, name) && given[name] !== undefined;
    if (!present) {
      if (spec.default !== undefined) out[name] = spec.default;
      else if (spec.required) {
        throw new ValidationError(`missing required input "${name}"`, {
          field: `inputs.${name}`,
          constraint: 'required',
        });
      }
      continue;
    }
    const value = coerce(spec.type, given[name]);
    if (value === undefined) {
      throw new ValidationError(
        `input "${name}" must be a ${spec.type}, got ${describeValue(given[name])}`,
        {
          field: `inputs.${name}`,
          constraint: 'type',
          expected: spec.type,
        },
      );
    }
    if (
      spec.enum &&
      !spec.enum.some((allowed) => JSON.stringify(allowed) === JSON.stringify(value))
    ) {
      throw new ValidationError(
        `input "${name}" must be one of ${spec.enum.map((v) => JSON.stringify(v)).join(', ')}, got ${describeValue(value)}`,
        { field: `inputs.${name}`, constraint: 'enum' },
      );
    }
    out[name] = value;
  }
  return out;
}

/** The value converted to `type`, or `undefined` when it cannot be. */
export function coerce(type: InputType, value: unknown): unknown {
  if (matchesInputType(type, value)) return value;
  switch (type) {
    case 'string':
      return typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
    case 'number':
    case 'integer': {
      if (typeof value !== 'string' || value.trim() === '') return undefined;
      const number = Number(value);
      return matchesInputType(type, number) ? number : undefined;
    }
    case 'boolean':
      return value === 'true' ? true : value === 'false' ? false : undefined;
    case 'object':
    case 'array': {
      if (typeof value !== 'string') return undefined;
      try {
        const parsed: unknown = JSON.parse(value);
        return matchesInputType(type, parsed) ? parsed : undefined;
      } catch {
        return undefined;
      }
    }
  }
}
