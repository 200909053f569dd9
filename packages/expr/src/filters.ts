import { errorAt, type Site } from './errors.js';
import { stableJson } from './stringify.js';
import { isPlainObject, typeName } from './values.js';

/** Name of a built-in filter. */
export type FilterName = 'upper' | 'lower' | 'title' | 'default' | 'length' | 'json' | 'round';

/** What the parser checks about a filter: its arity and how it is written. */
export interface FilterSpec {
  readonly minArgs: number;
  readonly maxArgs: number;
  /** How the filter is written, for arity errors. */
  readonly usage: string;
}

/** Every filter, with its arity. */
export const FILTER_SPECS: Readonly<Record<FilterName, FilterSpec>> = Object.freeze({
  upper: { minArgs: 0, maxArgs: 0, usage: 'value | upper' },
  lower: { minArgs: 0, maxArgs: 0, usage: 'value | lower' },
  title: { minArgs: 0, maxArgs: 0, usage: 'value | title' },
  default: { minArgs: 1, maxArgs: 1, usage: 'value | default(fallback)' },
  length: { minArgs: 0, maxArgs: 0, usage: 'value | length' },
  json: { minArgs: 0, maxArgs: 0, usage: 'value | json' },
  round: { minArgs: 0, maxArgs: 1, usage: 'value | round or value | round(digits)' },
});

/** Names of the built-in filters. */
export const FILTER_NAMES: readonly FilterName[] = Object.freeze(
  Object.keys(FILTER_SPECS) as FilterName[],
);

/** True when `name` is a built-in filter. */
export function isFilterName(name: string): name is FilterName {
  return Object.hasOwn(FILTER_SPECS, name);
}

/** Largest number of decimals `round` accepts. */
export const MAX_ROUND_DIGITS = 15;

function wrongType(filter: string, expected: string, value: unknown, site: Site): never {
  throw errorAt(site, 'type', `filter ${filter} expects ${expected}, found ${typeName(value)}`);
}

/** `upper`: the string in upper case (locale-independent). */
export function upper(value: unknown, site: Site): string {
  if (typeof value !== 'string') wrongType('upper', 'a string', value, site);
  return value.toUpperCase();
}

/** `lower`: the string in lower case (locale-independent). */
export function lower(value: unknown, site: Site): string {
  if (typeof value !== 'string') wrongType('lower', 'a string', value, site);
  return value.toLowerCase();
}

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu;

/**
 * `title`: each word with its first letter upper-cased and the rest lower-cased. A word is a run
 * of letters and digits, apostrophes inside it included (`o'neil` → `O'neil`).
 */
export function title(value: unknown, site: Site): string {
  if (typeof value !== 'string') wrongType('title', 'a string', value, site);
  return value.replace(WORD, (word) => {
    const first = String.fromCodePoint(word.codePointAt(0) ?? 0);
    return first.toUpperCase() + word.slice(first.length).toLowerCase();
  });
}

/**
 * `length`: number of elements of an array, of characters (Unicode code points) of a string, or
 * of own keys of a plain object.
 */
export function length(value: unknown, site: Site): number {
  if (typeof value === 'string') {
    let count = 0;
    for (let i = 0; i < value.length; i++) {
      const code = value.charCodeAt(i);
      // A high surrogate followed by a low one is one code point.
      if (code >= 0xd800 && code <= 0xdbff && i + 1 < value.length) {
        const next = value.charCodeAt(i + 1);
        if (next >= 0xdc00 && next <= 0xdfff) i++;
      }
      count++;
    }
    return count;
  }
  if (Array.isArray(value)) return value.length;
  if (isPlainObject(value)) return Object.keys(value).length;
  return wrongType('length', 'an array, a string or an object', value, site);
}

/** `json`: the value as stable JSON (see {@link stableJson}). */
export function json(value: unknown, site: Site): string {
  return stableJson(value, site, 'filter json');
}

/**
 * Checks the `digits` argument of `round`: an integer from 0 to {@link MAX_ROUND_DIGITS}. The
 * value is shown in messages only when `showValue` (a literal): a computed one may be a secret.
 */
export function checkRoundDigits(digits: unknown, site: Site, showValue = false): number {
  const found = showValue ? ` ${String(digits)}` : '';
  if (typeof digits !== 'number' || !Number.isInteger(digits)) {
    throw errorAt(
      site,
      'type',
      `filter round expects an integer number of digits, found ${typeName(digits)}${found}`,
    );
  }
  if (digits < 0 || digits > MAX_ROUND_DIGITS) {
    throw errorAt(
      site,
      'range',
      `filter round expects 0 to ${MAX_ROUND_DIGITS} digits, found${found || ' a number outside'}`,
    );
  }
  return digits;
}

/**
 * `round(digits)`: the number rounded to `digits` decimals, halves away from zero. Rounding works
 * on the shortest decimal text of the number, so `1.005 | round(2)` is `1.01` as written, not
 * `1.00` as its binary value would give.
 */
export function round(value: unknown, digits: number, site: Site): number {
  if (typeof value !== 'number') wrongType('round', 'a number', value, site);
  if (!Number.isFinite(value)) return value;
  const magnitude = Math.abs(value);
  const [mantissa = '0', exponent = '0'] = String(magnitude).split('e');
  const shifted = Number(`${mantissa}e${Number(exponent) + digits}`);
  // Beyond 2^53 every double is an integer: nothing left to round at this scale.
  if (!(shifted < Number.MAX_SAFE_INTEGER)) return value;
  const rounded = Number(`${Math.round(shifted)}e${-digits}`);
  const result = value < 0 ? -rounded : rounded;
  return result === 0 ? 0 : result;
}
