import { errorAt, type TemplateError } from './errors.js';

/** Kind of a {@link Token}. `close` is the `}}` that ends an expression part. */
export type TokenType = 'number' | 'string' | 'name' | 'op' | 'close';

/** One lexical token of an expression, located in the template source string. */
export interface Token {
  readonly type: TokenType;
  /** Decoded value: the number, the unescaped string, the name or the operator text. */
  readonly value: string | number;
  readonly offset: number;
  readonly length: number;
}

/** Tokens of one `{{ }}` part, ending with its `close` token, and the offset just past `}}`. */
export interface LexResult {
  readonly tokens: Token[];
  readonly end: number;
}

/** Operators, longest first so that `<=` wins over `<`. */
const OPERATORS = [
  '==',
  '!=',
  '<=',
  '>=',
  '<',
  '>',
  '+',
  '-',
  '*',
  '/',
  '%',
  '.',
  '[',
  ']',
  '(',
  ')',
  ',',
  '|',
  '?',
  ':',
];

/** JavaScript (and other) spellings that are not ours, with what to write instead. */
const FOREIGN_OPERATORS: readonly (readonly [string, string, string])[] = [
  ['===', '==', 'use `==` (comparison is always strict)'],
  ['!==', '!=', 'use `!=` (comparison is always strict)'],
  ['&&', 'and', 'use `and` instead of `&&`'],
  ['||', 'or', 'use `or` instead of `||`'],
  ['??', 'default', 'use `value | default(fallback)` instead of `??`'],
  ['?.', 'default', 'optional chaining is not supported; use `value | default(fallback)`'],
  ['**', '*', 'there is no power operator'],
  ['=', '==', 'assignment is not allowed; use `==` to compare'],
  ['!', 'not', 'use `not` instead of `!`'],
  ['&', 'and', 'use `and` instead of `&`'],
  ['`', "'", 'template literals are not supported; use \'single\' or "double" quotes'],
];

const NUMBER = /[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;

function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r';
}

function isNameChar(c: string | undefined): boolean {
  return c !== undefined && /[A-Za-z0-9_]/.test(c);
}

/**
 * Splits the expression that starts at `start` (just after `{{`) into tokens, up to and including
 * the `}}` that closes it. `open` is the offset of the `{{`, used for the "unclosed" error.
 * Strings may contain `}}`; anything else that cannot start a token is a syntax error.
 */
export function lexPart(source: string, start: number, open: number): LexResult {
  const tokens: Token[] = [];
  let i = start;
  for (;;) {
    while (isSpace(source[i])) i++;
    const c = source[i];
    if (c === undefined) {
      throw errorAt(
        { field: source.slice(open, open + 40), offset: open, length: 2 },
        'syntax',
        'unclosed `{{`: expected `}}` before the end of the template',
      );
    }
    if (c === '}' && source[i + 1] === '}') {
      tokens.push({ type: 'close', value: '}}', offset: i, length: 2 });
      return { tokens, end: i + 2 };
    }
    if (c >= '0' && c <= '9') {
      tokens.push(lexNumber(source, i));
    } else if (c === "'" || c === '"') {
      tokens.push(lexString(source, i));
    } else if (isNameChar(c)) {
      NAME.lastIndex = i;
      const name = NAME.exec(source)?.[0] ?? c;
      tokens.push({ type: 'name', value: name, offset: i, length: name.length });
    } else {
      tokens.push(lexOperator(source, i));
    }
    const last = tokens[tokens.length - 1]!;
    i = last.offset + last.length;
  }
}

function lexOperator(source: string, i: number): Token {
  for (const [text, suggestion, message] of FOREIGN_OPERATORS) {
    if (!source.startsWith(text, i)) continue;
    // `!=` and `==` are ours; `=` and `!` only count as foreign when not part of them.
    if ((text === '=' || text === '!') && source[i + 1] === '=') break;
    throw errorAt({ field: text, offset: i, length: text.length }, 'syntax', message, suggestion);
  }
  if (source[i] === '}') {
    throw errorAt(
      { field: '}', offset: i, length: 1 },
      'syntax',
      'expected `}}` to close the expression, found a single `}`',
    );
  }
  for (const op of OPERATORS) {
    if (source.startsWith(op, i)) return { type: 'op', value: op, offset: i, length: op.length };
  }
  const c = String.fromCodePoint(source.codePointAt(i) ?? 0);
  throw errorAt(
    { field: c, offset: i, length: c.length },
    'syntax',
    `unexpected character ${JSON.stringify(c)} in expression`,
  );
}

function lexNumber(source: string, i: number): Token {
  NUMBER.lastIndex = i;
  const text = NUMBER.exec(source)?.[0] ?? '';
  const end = i + text.length;
  if (isNameChar(source[end])) {
    let stop = end;
    while (isNameChar(source[stop])) stop++;
    const bad = source.slice(i, stop);
    throw errorAt(
      { field: bad, offset: i, length: stop - i },
      'syntax',
      `invalid number ${JSON.stringify(bad)}: names cannot start with a digit (use ['${bad}'] for such a key)`,
    );
  }
  const value = Number(text);
  if (!Number.isFinite(value)) {
    throw errorAt(
      { field: text, offset: i, length: text.length },
      'range',
      `number ${text} is too large`,
    );
  }
  return { type: 'number', value, offset: i, length: text.length };
}

const ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\',
  "'": "'",
  '"': '"',
  n: '\n',
  t: '\t',
  r: '\r',
};

function lexString(source: string, start: number): Token {
  const quote = source[start];
  let value = '';
  let i = start + 1;
  for (;;) {
    const c = source[i];
    if (c === undefined) {
      throw errorAt(
        { field: source.slice(start, start + 40), offset: start, length: source.length - start },
        'syntax',
        `unterminated string: expected a closing ${quote} before the end of the template`,
      );
    }
    if (c === quote) return { type: 'string', value, offset: start, length: i + 1 - start };
    if (c !== '\\') {
      value += c;
      i++;
      continue;
    }
    const next = source[i + 1];
    const simple = next === undefined ? undefined : ESCAPES[next];
    if (simple !== undefined) {
      value += simple;
      i += 2;
    } else if (next === 'u') {
      const [text, length] = unicodeEscape(source, i);
      value += text;
      i += length;
    } else {
      throw badEscape(source, i, 2);
    }
  }
}

/** Decodes `\uXXXX` or `\u{X...}` at `i`; returns the text and the escape's length. */
function unicodeEscape(source: string, i: number): [string, number] {
  if (source[i + 2] === '{') {
    const close = source.indexOf('}', i + 3);
    const hex = close < 0 ? '' : source.slice(i + 3, close);
    const code = /^[0-9a-fA-F]{1,6}$/.test(hex) ? parseInt(hex, 16) : NaN;
    if (!(code <= 0x10ffff)) throw badEscape(source, i, close < 0 ? 3 : close + 1 - i);
    return [String.fromCodePoint(code), close + 1 - i];
  }
  const hex = source.slice(i + 2, i + 6);
  if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw badEscape(source, i, 2 + hex.length);
  return [String.fromCharCode(parseInt(hex, 16)), 6];
}

function badEscape(source: string, i: number, length: number): TemplateError {
  const text = source.slice(i, i + length);
  return errorAt(
    { field: text, offset: i, length },
    'syntax',
    `invalid escape ${JSON.stringify(text)}: expected \\\\, \\', \\", \\n, \\t, \\r, \\uXXXX or \\u{X}`,
  );
}
