import { createRequire } from 'node:module';
import { ValidationError } from '@weft/core';
import type { Ajv, ValidateFunction } from 'ajv';

// ajv is CommonJS and compiles its meta-schema when made: made at the first edited approval.
const require = createRequire(import.meta.url);
let ajv: Ajv | undefined;
const compiled = new Map<string, ValidateFunction>();

/**
 * Checks an approver's edited arguments of a tool call against the tool's input schema (kept in
 * its `waiting_for`): `VALIDATION` with `field` `arguments.<path>` and the failed keyword as
 * `constraint` when they do not fit, or when no schema is known (fail closed).
 */
export function checkToolArguments(schema: unknown, args: Record<string, unknown>): void {
  if (typeof schema !== 'object' || schema === null) {
    throw new ValidationError('the tool call has no input schema to check edited arguments by', {
      field: 'arguments',
      constraint: 'input_schema',
    });
  }
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    ajv ??= new (require('ajv') as typeof import('ajv')).Ajv({ strict: false, allErrors: true });
    validate = ajv.compile(schema);
    if (compiled.size >= 100) compiled.clear();
    compiled.set(key, validate);
  }
  if (validate(args)) return;
  const first = validate.errors?.[0];
  const path = (first?.instancePath ?? '').split('/').filter(Boolean).join('.');
  const missing =
    first?.keyword === 'required' ? String(first.params['missingProperty'] ?? '') : '';
  const field = ['arguments', path, missing].filter(Boolean).join('.');
  throw new ValidationError(
    `the edited arguments do not fit the tool's input schema: ${field} ${first?.message ?? 'is invalid'}`,
    { field, constraint: first?.keyword ?? 'schema' },
  );
}
