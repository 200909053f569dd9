import { errorAt, type Site } from './errors.js';
import { MAX_DATA_DEPTH } from './limits.js';

const OBJECT_PROTOTYPE: unknown = Object.prototype;
const getPrototypeOf = Object.getPrototypeOf;

/**
 * True for a plain object: prototype `Object.prototype` or `null` (object literals, `JSON.parse`
 * results, `Object.create(null)`). Only plain objects and arrays have readable members.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = getPrototypeOf(value);
  return prototype === OBJECT_PROTOTYPE || prototype === null;
}

/**
 * The type of a value as messages name it: `missing`, `null`, `boolean`, `number`, `string`,
 * `array`, `object` (plain), `function`, or `non-plain object` (class instances, maps, dates...).
 */
export function typeName(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return isPlainObject(value) ? 'object' : 'non-plain object';
  return typeof value;
}

/** Result of {@link readOwnData} when the property is an accessor (never invoked). */
export const ACCESSOR: unique symbol = Symbol('accessor');

/**
 * The own data property `key` of `target`, `undefined` when there is none, or {@link ACCESSOR}
 * when it is a getter/setter pair — which is never called.
 */
export function readOwnData(target: object, key: string | number): unknown {
  const descriptor = Object.getOwnPropertyDescriptor(target, key);
  if (descriptor === undefined) return undefined;
  if (descriptor.get !== undefined || descriptor.set !== undefined) return ACCESSOR;
  return descriptor.value;
}

/**
 * Truthiness used by `and`, `or`, `not`, `?:` and step conditions: `false`, `null`, missing,
 * `0`, `NaN`, `''`, `[]` and `{}` are falsy; everything else is truthy.
 */
export function isTruthy(value: unknown): boolean {
  if (value === true) return true;
  if (value === false || value === null || value === undefined) return false;
  switch (typeof value) {
    case 'string':
      return value.length > 0;
    case 'number':
      return value !== 0 && !Number.isNaN(value);
    case 'object':
      if (Array.isArray(value)) return value.length > 0;
      return isPlainObject(value) ? Object.keys(value).length > 0 : true;
    default:
      return true;
  }
}

/**
 * Deep equality on JSON values (`==`): same type and same value; arrays element by element,
 * plain objects by their own enumerable keys in any order. Other objects are equal only to
 * themselves. No getter is invoked; data deeper than {@link MAX_DATA_DEPTH} is a `limit` error.
 */
export function deepEqual(a: unknown, b: unknown, site: Site, depth = 0): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    return typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b);
  }
  if (depth >= MAX_DATA_DEPTH) {
    throw errorAt(
      site,
      'limit',
      `cannot compare values nested deeper than ${MAX_DATA_DEPTH} levels`,
    );
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      if (!deepEqual(readOwnData(a, i), readOwnData(b, i), site, depth + 1)) return false;
    }
    return true;
  }
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) {
    if (!Object.hasOwn(b, key)) return false;
    if (!deepEqual(readOwnData(a, key), readOwnData(b, key), site, depth + 1)) return false;
  }
  return true;
}
