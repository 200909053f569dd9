import { Ajv, type AnySchema } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';

const OPTIONS = { strict: false, allErrors: false, addUsedSchema: false, validateFormats: false };
// Made on first use: an ajv instance compiles its meta-schema, which every importer would pay.
let draft7: Ajv | undefined;
let draft2020: Ajv2020 | undefined;

/** Most verdicts remembered: compiling a schema costs about a millisecond, its text a few µs. */
const MAX_VERDICTS = 2000;
/** Larger schemas are checked every time, so the memory held stays under 2000 × 16 KiB. */
const MAX_REMEMBERED_LENGTH = 16 * 1024;
/** Verdicts by schema text (`null`: valid). The verdict depends only on the text. */
const verdicts = new Map<string, string | null>();

/**
 * Checks that `schema` is a usable JSON Schema: valid against its meta-schema (draft-07, or
 * 2020-12 when its `$schema` says so) and compilable (references resolve, patterns are regular
 * expressions). Returns the reason when it is not, else undefined. Verdicts are remembered by
 * the schema's JSON text (bounded), since republishing the same schemas is the common case.
 */
export function jsonSchemaProblem(schema: unknown): string | undefined {
  if (typeof schema === 'boolean') return undefined;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return 'a JSON Schema is an object (or true/false)';
  }
  const text = JSON.stringify(schema);
  const known = verdicts.get(text);
  if (known !== undefined) return known ?? undefined;
  const verdict = checkSchema(schema);
  if (text.length > MAX_REMEMBERED_LENGTH) return verdict;
  if (verdicts.size >= MAX_VERDICTS) verdicts.delete(verdicts.keys().next().value!);
  verdicts.set(text, verdict ?? null);
  return verdict;
}

function checkSchema(schema: object): string | undefined {
  const declared = (schema as Record<string, unknown>)['$schema'];
  const ajv =
    typeof declared === 'string' && declared.includes('2020-12')
      ? (draft2020 ??= new Ajv2020(OPTIONS))
      : (draft7 ??= new Ajv(OPTIONS));
  if (!ajv.validateSchema(schema)) {
    return ajv.errorsText(ajv.errors, { dataVar: 'schema' });
  }
  try {
    ajv.compile(schema as AnySchema);
    return undefined;
  } catch (error) {
    return (error as Error).message.split('\n')[0];
  } finally {
    ajv.removeSchema(schema);
  }
}
