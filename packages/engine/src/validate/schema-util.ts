import type { Path } from '../diagnostics.js';
import type { Schema } from './schema-check.js';

/** True for a plain object (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function fitsType(schema: Schema, value: unknown): boolean {
  switch (schema.type) {
    case 'object':
      return isPlainObject(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'integer':
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    default:
      return schema.const === undefined || schema.const === value;
  }
}

export function describeSchemaType(schema: Schema): string {
  switch (schema.type) {
    case 'object':
      return 'an object';
    case 'array':
      return 'a list';
    case 'string':
      return 'a string';
    case 'integer':
      return 'an integer';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'true or false';
    default:
      return 'a value';
  }
}

/**
 * A copy of `value` without the parts at `bad` paths (relative to `value`). An array with a bad
 * item is dropped whole, so that the indexes in later diagnostics still point at the file.
 */
export function prune(value: unknown, bad: Path[]): unknown {
  if (bad.some((p) => p.length === 0)) return undefined;
  if (Array.isArray(value)) {
    if (bad.some((p) => p.length === 1)) return undefined;
    return value.map((item, index) => prune(item, below(bad, index)));
  }
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const kept = prune(item, below(bad, key));
    if (kept === undefined) continue;
    Object.defineProperty(out, key, {
      value: kept,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

function below(bad: Path[], segment: string | number): Path[] {
  return bad.filter((p) => p[0] === segment).map((p) => p.slice(1));
}
