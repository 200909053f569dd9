import { createRequire } from 'node:module';
import { BackendError, ValidationError } from '@weft/core';
import type { Reporter } from '@weft/engine';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';

// ajv (60 to 90 modules) is required when the first instance is made, not when this module
// loads: it is CommonJS, so `require` loads it synchronously, and a process with no action
// schema to compile never loads it.
const require = createRequire(import.meta.url);

/**
 * A new ajv instance for action schemas: JSON Schema draft-07, all errors collected, unknown
 * keywords and formats tolerated (an author's `format: email` is documentation, not a check),
 * no console warnings.
 */
export function createAjv(): Ajv {
  return new (require('ajv') as typeof import('ajv')).Ajv({
    strict: false,
    allErrors: true,
    validateFormats: false,
    logger: false,
  });
}

/** The draft 2020-12 companion of each instance of {@link createAjv}, made when first needed. */
const companions = new WeakMap<Ajv, Ajv2020>();

/** The instance that compiles `schema`: draft 2020-12 when its `$schema` says so (as the registry). */
function ajvFor(ajv: Ajv, schema: Record<string, unknown>): Ajv {
  const dialect = schema['$schema'];
  if (typeof dialect !== 'string' || !dialect.includes('/draft/2020-12/')) return ajv;
  let companion = companions.get(ajv);
  if (companion === undefined) {
    companion = new (require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js')).Ajv2020({
      strict: false,
      allErrors: true,
      validateFormats: false,
      logger: false,
    });
    companions.set(ajv, companion);
  }
  return companion;
}

/**
 * Compiles an action's `input_schema` / `output_schema` once (draft-07, or 2020-12 when its
 * `$schema` names it); a bad schema is reported at `path`.
 */
export function compileActionSchema(
  ajv: Ajv,
  schema: Record<string, unknown> | undefined,
  path: (string | number)[],
  reporter: Reporter,
): ValidateFunction | undefined {
  if (schema === undefined) return undefined;
  try {
    return ajvFor(ajv, schema).compile(schema);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    reporter.error(path, 'schema', `not a valid JSON Schema: ${message}`);
    return undefined;
  }
}

/**
 * Checks an action input. A mismatch is `VALIDATION` with `details.field` the path in the input
 * (`input.channel`, `input.items[2]`) and `details.constraint` the JSON Schema keyword that
 * failed (`required`, `type`, `enum`, ...); the message lists every mismatch.
 */
export function checkInput(validate: ValidateFunction | undefined, input: unknown, call: string) {
  if (!validate || validate(input)) return;
  const errors = validate.errors ?? [];
  const first = errors[0];
  const lines = errors.map(describe('input'));
  throw new ValidationError(`invalid input of ${call}: ${lines.join('; ')}`, {
    field: first ? fieldOf('input', first) : 'input',
    constraint: first?.keyword ?? 'schema',
  });
}

/**
 * Checks an action output. A mismatch is the handler's fault (it broke its contract), so it is
 * `BACKEND_ERROR` with `details.backend` the connector and `details.original_error` the mismatch.
 */
export function checkOutput(
  validate: ValidateFunction | undefined,
  output: unknown,
  call: string,
  backend: string,
) {
  if (!validate || validate(output)) return;
  const lines = (validate.errors ?? []).map(describe('output'));
  const text = `output does not match output_schema: ${lines.join('; ')}`;
  throw new BackendError(`${call} returned an invalid output: ${lines.join('; ')}`, {
    backend,
    original_error: text,
  });
}

function describe(root: string) {
  return (error: ErrorObject) => {
    const field = fieldOf(root, error);
    if (error.keyword === 'required') return `${field} is required`;
    if (error.keyword === 'additionalProperties') return `${field} is not allowed`;
    return `${field} ${error.message ?? 'is invalid'}`;
  };
}

/** `input.a.b[2]` from ajv's JSON Pointer, plus the missing property of `required`. */
function fieldOf(root: string, error: ErrorObject): string {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') segments.push(String(error.params['missingProperty']));
  if (error.keyword === 'additionalProperties') {
    segments.push(String(error.params['additionalProperty']));
  }
  let out = root;
  for (const segment of segments) {
    out += /^\d+$/.test(segment)
      ? `[${segment}]`
      : /^[A-Za-z_$][\w$-]*$/.test(segment)
        ? `.${segment}`
        : `[${JSON.stringify(segment)}]`;
  }
  return out;
}
