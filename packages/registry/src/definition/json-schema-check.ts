import { Ajv, type AnySchema } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';

const draft7 = new Ajv({
  strict: false,
  allErrors: false,
  addUsedSchema: false,
  validateFormats: false,
});
const draft2020 = new Ajv2020({
  strict: false,
  allErrors: false,
  addUsedSchema: false,
  validateFormats: false,
});

/**
 * Checks that `schema` is a usable JSON Schema: valid against its meta-schema (draft-07, or
 * 2020-12 when its `$schema` says so) and compilable (references resolve, patterns are regular
 * expressions). Returns the reason when it is not, else undefined. Nothing is cached.
 */
export function jsonSchemaProblem(schema: unknown): string | undefined {
  if (typeof schema === 'boolean') return undefined;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return 'a JSON Schema is an object (or true/false)';
  }
  const declared = (schema as Record<string, unknown>)['$schema'];
  const ajv = typeof declared === 'string' && declared.includes('2020-12') ? draft2020 : draft7;
  if (!ajv.validateSchema(schema as AnySchema)) {
    return ajv.errorsText(ajv.errors, { dataVar: 'schema' });
  }
  try {
    ajv.compile(schema as AnySchema);
    return undefined;
  } catch (error) {
    return (error as Error).message.split('\n')[0];
  } finally {
    ajv.removeSchema(schema as AnySchema);
  }
}
