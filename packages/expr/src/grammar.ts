import type { Span } from './ast.js';
import type { Token } from './lexer.js';

/**
 * Binding powers of the Pratt parser, lowest first:
 *
 * | power | operators | associativity |
 * |---|---|---|
 * | 10 | `cond ? a : b` | right |
 * | 20 | `or` | left |
 * | 30 | `and` | left |
 * | 40 | `not x` (prefix) | — |
 * | 50 | `== != < <= > >=` | none: `a < b < c` is an error |
 * | 60 | `+ -` | left |
 * | 70 | `* / %` | left |
 * | 75 | `x \| filter(args)` | left |
 * | 80 | `-x` (prefix) | — |
 * | 100 | `a.b`, `a[k]` (postfix) | left |
 *
 * Filters bind tighter than every binary operator and looser than prefix `-` and member access,
 * as in Jinja: `a + b | upper` is `a + (b | upper)` and `-x | round` is `(-x) | round`. `not`
 * binds looser than comparisons, as in Python: `not a == b` is `not (a == b)`.
 */
export const BINDING_POWER = {
  conditional: 10,
  or: 20,
  and: 30,
  not: 40,
  compare: 50,
  sum: 60,
  product: 70,
  filter: 75,
  negate: 80,
  postfix: 100,
} as const;

/** The comparison operators (which do not chain). */
export const COMPARISONS: ReadonlySet<string> = new Set(['==', '!=', '<', '<=', '>', '>=']);

/** Message for `name(...)` anywhere. */
export const CALL_MESSAGE =
  'function calls are not allowed; filters are written `value | name(args)`';

/** Power with which `token` continues an expression as an infix or postfix operator (0: it does not). */
export function infixPower(token: Token): number {
  if (token.type === 'name') {
    if (token.value === 'and') return BINDING_POWER.and;
    return token.value === 'or' ? BINDING_POWER.or : 0;
  }
  if (token.type !== 'op') return 0;
  switch (token.value) {
    case '?':
      return BINDING_POWER.conditional;
    case '+':
    case '-':
      return BINDING_POWER.sum;
    case '*':
    case '/':
    case '%':
      return BINDING_POWER.product;
    case '|':
      return BINDING_POWER.filter;
    case '.':
    case '[':
    case '(':
      return BINDING_POWER.postfix;
    default:
      return COMPARISONS.has(String(token.value)) ? BINDING_POWER.compare : 0;
  }
}

/** True when `token` is the operator `value`. */
export function isOp(token: Token, value: string): boolean {
  return token.type === 'op' && token.value === value;
}

/** Offset just past a span. */
export function end(span: Span): number {
  return span.offset + span.length;
}

/** The span from the start of `first` to the end of `last`. */
export function between(first: Span, last: Span): Span {
  return { offset: first.offset, length: end(last) - first.offset };
}

/** A token as messages show it: ``found `}}` ``, `found name "x"`, `found number 2`... */
export function describe(token: Token): string {
  switch (token.type) {
    case 'close':
      return '`}}`';
    case 'name':
      return `name "${String(token.value)}"`;
    case 'number':
      return `number ${String(token.value)}`;
    case 'string':
      return `string ${JSON.stringify(token.value)}`;
    case 'op':
      return `\`${String(token.value)}\``;
  }
}
