import type { BinaryOperator } from './ast.js';
import { errorAt, type Site } from './errors.js';
import { LIMITS } from './limits.js';
import { toText } from './stringify.js';
import { deepEqual, typeName } from './values.js';

/** An operator implementation: both operands already evaluated. */
export type BinaryFunction = (left: unknown, right: unknown, site: Site) => unknown;

function finite(value: number, operator: string, site: Site): number {
  if (!Number.isFinite(value)) {
    throw errorAt(site, 'arithmetic', `${operator} gave a result that is not a finite number`);
  }
  return value;
}

function numbers(operator: string, left: unknown, right: unknown, site: Site): void {
  if (typeof left !== 'number' || typeof right !== 'number') {
    throw errorAt(
      site,
      'type',
      `${operator} expects two numbers, found ${typeName(left)} and ${typeName(right)}`,
    );
  }
}

/**
 * `+`: two numbers add; when either operand is a string both are turned into text (as in a
 * text template: `null` → `''`, objects as JSON) and joined, up to `LIMITS.maxStringLength`.
 * Any other pair is a type error.
 */
export function add(left: unknown, right: unknown, site: Site): unknown {
  if (typeof left === 'number' && typeof right === 'number') return finite(left + right, '+', site);
  if (typeof left === 'string' || typeof right === 'string') {
    const text = toText(left, site) + toText(right, site);
    if (text.length > LIMITS.maxStringLength) {
      throw errorAt(
        site,
        'limit',
        `+ would build a string longer than ${LIMITS.maxStringLength} characters (maxStringLength)`,
      );
    }
    return text;
  }
  throw errorAt(
    site,
    'type',
    `+ expects two numbers or a string, found ${typeName(left)} and ${typeName(right)}`,
  );
}

function compare(operator: string, left: unknown, right: unknown, site: Site): void {
  const sameKind =
    (typeof left === 'number' && typeof right === 'number') ||
    (typeof left === 'string' && typeof right === 'string');
  if (!sameKind) {
    throw errorAt(
      site,
      'type',
      `${operator} compares two numbers or two strings, found ${typeName(left)} and ${typeName(right)}`,
    );
  }
}

/** Every binary operator. Division and remainder by zero are errors; `%` keeps the sign of the left operand. */
export const BINARY: Readonly<Record<BinaryOperator, BinaryFunction>> = {
  '+': add,
  '-': (l, r, site) => {
    numbers('-', l, r, site);
    return finite((l as number) - (r as number), '-', site);
  },
  '*': (l, r, site) => {
    numbers('*', l, r, site);
    return finite((l as number) * (r as number), '*', site);
  },
  '/': (l, r, site) => {
    numbers('/', l, r, site);
    if (r === 0) throw errorAt(site, 'arithmetic', 'division by zero');
    return finite((l as number) / (r as number), '/', site);
  },
  '%': (l, r, site) => {
    numbers('%', l, r, site);
    if (r === 0) throw errorAt(site, 'arithmetic', 'remainder of a division by zero');
    return finite((l as number) % (r as number), '%', site);
  },
  '==': (l, r, site) => deepEqual(l, r, site),
  '!=': (l, r, site) => !deepEqual(l, r, site),
  '<': (l, r, site) => {
    compare('<', l, r, site);
    return (l as number) < (r as number);
  },
  '<=': (l, r, site) => {
    compare('<=', l, r, site);
    return (l as number) <= (r as number);
  },
  '>': (l, r, site) => {
    compare('>', l, r, site);
    return (l as number) > (r as number);
  },
  '>=': (l, r, site) => {
    compare('>=', l, r, site);
    return (l as number) >= (r as number);
  },
};

/** Unary `-`: numbers only. */
export function negate(value: unknown, site: Site): number {
  if (typeof value !== 'number') {
    throw errorAt(site, 'type', `- expects a number, found ${typeName(value)}`);
  }
  return value === 0 ? 0 : -value;
}
