import { ValidationError } from '../errors/weft-error.js';

/**
 * Deepest nesting of maps and lists any input may have: workflow, plugin, agent and connector
 * files, and JSON bodies. Real definitions stay far below it (examples nest about 10 deep);
 * parsers and validators that recurse are safe well above it.
 */
export const MAX_NESTING_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Deepest `{`/`[` nesting of JSON text, found in one pass without recursion and without parsing
 * (brackets inside strings do not count), so it can run before a parser that recurses. Stops at
 * `limit + 1`: the answer is exact up to the limit, and "over it" past it. Invalid JSON gets an
 * answer too; the parser reports its syntax.
 */
export function jsonTextDepth(text: string, limit = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x7b || code === 0x5b) {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (code === 0x7d || code === 0x5d) {
      if (depth > 0) depth--;
    } else if (code === QUOTE) {
      for (i++; i < text.length && text.charCodeAt(i) !== QUOTE; i++) {
        if (text.charCodeAt(i) === BACKSLASH) i++;
      }
    }
  }
  return deepest;
}

/**
 * The shape of a YAML concrete syntax tree token as the `yaml` library's `Parser` yields it
 * (documents, block and flow collections with their items), typed structurally so that core
 * needs no YAML library.
 */
export interface YamlCstToken {
  type: string;
  value?: YamlCstToken | string | null | undefined;
  items?: readonly { key?: unknown; value?: unknown }[];
}

/**
 * Deepest nesting of maps and lists in the YAML concrete syntax tree of a text (the tokens of
 * `new Parser().parse(text)` from `yaml`; that parser keeps its own stack, while composing the
 * document recurses once per level). Walked without recursion; stops at `limit + 1`.
 */
export function yamlCstDepth(
  tokens: Iterable<YamlCstToken>,
  limit = Number.POSITIVE_INFINITY,
): number {
  let deepest = 0;
  for (const token of tokens) {
    const stack: [unknown, number][] = [[token, 0]];
    while (stack.length > 0) {
      const [node, depth] = stack.pop()!;
      if (typeof node !== 'object' || node === null) continue;
      const { type, items, value } = node as YamlCstToken;
      if (type === 'document') {
        stack.push([value, depth]);
        continue;
      }
      if (!Array.isArray(items)) continue;
      const inner = depth + 1;
      if (inner > deepest) {
        deepest = inner;
        if (deepest > limit) return deepest;
      }
      for (const item of items as { key?: unknown; value?: unknown }[]) {
        stack.push([item.key, inner], [item.value, inner]);
      }
    }
  }
  return deepest;
}

/**
 * The error for input nested deeper than `limit`: `VALIDATION` naming the field (empty for a
 * whole body) and the limit.
 */
export function tooDeepError(field: string, limit = MAX_NESTING_DEPTH): ValidationError {
  const where = field === '' ? 'the input' : field;
  return new ValidationError(
    `${where} nests maps and lists deeper than the limit of ${limit} levels: flatten it`,
    { field, constraint: 'too_deep', limit },
  );
}

/**
 * Refuses JSON text nested deeper than `limit` with {@link tooDeepError} naming `field`, from one
 * scan of the text and before anything parses or walks it: the check every JSON body takes
 * first.
 */
export function assertJsonTextDepth(text: string, field = 'body', limit = MAX_NESTING_DEPTH): void {
  if (jsonTextDepth(text, limit) > limit) throw tooDeepError(field, limit);
}
