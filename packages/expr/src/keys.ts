import type { LiteralNode } from './ast.js';
import { errorAt, type Site } from './errors.js';

/**
 * Property names that can never be read, however they are spelled: reaching them is the first
 * step of every prototype-pollution or sandbox-escape gadget.
 */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set([
  '__proto__',
  'constructor',
  'prototype',
]);

/** A key of a path segment: a property name or an array index. */
export type Key = string | number;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Formats a key as it would be written after a path: `.name`, `[0]` or `["odd-key"]`. */
export function formatKey(key: Key): string {
  if (typeof key === 'number') return `[${key}]`;
  if (IDENTIFIER.test(key)) return `.${key}`;
  return `[${JSON.stringify(key)}]`;
}

/**
 * Checks a literal key at compile time: a string that is not forbidden, or a non-negative
 * integer. Throws a {@link TemplateError} at the key otherwise.
 */
export function checkStaticKey(key: LiteralNode, source: string): void {
  const site: Site = {
    field: source.slice(key.offset, key.offset + key.length),
    offset: key.offset,
    length: key.length,
  };
  checkKey(key.value, site, true);
}

/**
 * Checks a key (static or computed): strings must not be forbidden, numbers must be non-negative
 * integers; anything else cannot index. Returns the key. Messages show a bad number only when
 * `showValue` (a literal from the source): a computed key may be derived from a secret.
 */
export function checkKey(key: unknown, site: Site, showValue = false): Key {
  if (typeof key === 'string') {
    if (FORBIDDEN_KEYS.has(key)) {
      throw errorAt(site, 'forbidden_property', `property "${key}" can never be read`);
    }
    return key;
  }
  if (typeof key === 'number') {
    if (!Number.isInteger(key)) {
      const found = showValue ? String(key) : 'a fraction';
      throw errorAt(site, 'type', `index must be an integer, found ${found}`);
    }
    if (key < 0) {
      throw errorAt(
        site,
        'range',
        `index must be 0 or more, found ${showValue ? key : 'a negative number'}; for the last element write list[(list | length) - 1]`,
      );
    }
    return key;
  }
  const found = key === null ? 'null' : typeof key;
  throw errorAt(site, 'type', `index must be a string or an integer, found ${found}`);
}
