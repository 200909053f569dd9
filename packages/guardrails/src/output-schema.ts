import { createRequire } from 'node:module';
import { ValidationError } from '@weft/core';
import type { Ajv, ValidateFunction } from 'ajv';

// Made on first use: an ajv instance compiles its meta-schema, which every importer would pay.
// ajv itself (some 60 modules) is required then too: it is CommonJS, so `require` loads it
// synchronously, and a process that compiles no schema here (`weft workflow validate` of a file
// without output schemas) never loads it.
const require = createRequire(import.meta.url);
let ajv: Ajv | undefined;
const compiled = new WeakMap<object, ValidateFunction>();

/** At most this many schema errors go into the error details. */
const MAX_ERRORS = 20;

/**
 * Checks `output` against a step's `guardrails.outputSchema` (compiled once per schema object).
 * Fails with `VALIDATION` (`field: "guardrails.outputSchema"`, `constraint: "schema"`) listing
 * where and which keyword failed (`errors: [{path, keyword, message}]`), never the values.
 */
export function checkOutputSchema(step: string, schema: object, output: unknown): void {
  let validate = compiled.get(schema);
  if (!validate)
    compiled.set(
      schema,
      (validate = (ajv ??= new (require('ajv') as typeof import('ajv')).Ajv({
        strict: false,
        allErrors: true,
      })).compile(schema)),
    );
  if (validate(output)) return;
  const errors = (validate.errors ?? []).slice(0, MAX_ERRORS).map((error) => ({
    path: error.instancePath === '' ? '/' : error.instancePath,
    keyword: error.keyword,
    message: error.message ?? error.keyword,
  }));
  const first = errors[0];
  throw new ValidationError(
    `step "${step}": the output does not match guardrails.outputSchema` +
      (first ? ` (${first.path} ${first.message})` : ''),
    { field: 'guardrails.outputSchema', constraint: 'schema', step, errors },
  );
}
