import { isAlias, isMap, isPair, isScalar, isSeq, parseDocument, Parser, type Node } from 'yaml';
import { jsonTextDepth, MAX_NESTING_DEPTH, yamlCstDepth } from '@weft/core';
import { findDuplicateKey } from './json-duplicates.js';

/** Limits of {@link parseDefinitionBytes}. */
export interface ParseLimits {
  /** Deepest nesting of maps and lists (default 64). */
  maxDepth: number;
  /** Most alias expansions (`*anchor`) in a YAML document (default 100). */
  maxAliasCount: number;
}

/** Default {@link ParseLimits}. */
export const DEFAULT_PARSE_LIMITS: ParseLimits = {
  maxDepth: MAX_NESTING_DEPTH,
  maxAliasCount: 100,
};

/** One problem found while parsing or validating a definition. */
export interface DefinitionProblem {
  /** Dotted path, e.g. `actions[0].input_schema` (empty for the whole document). */
  field: string;
  /** Short machine word: `syntax`, `duplicate_key`, `required`, `pattern`, ... */
  constraint: string;
  message: string;
  line?: number;
  column?: number;
  /** The limit a `too_deep` problem went over. */
  limit?: number;
}

/** Result of parsing: the plain data, or the problems. */
export type ParseResult =
  { ok: true; value: unknown } | { ok: false; problems: DefinitionProblem[] };

/** The body formats a definition may come in. */
export type DefinitionFormat = 'json' | 'yaml';

const ALLOWED_TAGS = new Set(
  ['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((t) => `tag:yaml.org,2002:${t}`),
);

/**
 * Turns the bytes of a JSON or YAML plugin definition into plain data, refusing invalid UTF-8,
 * syntax errors, duplicate keys, alias bombs, deep nesting, custom tags and `__proto__` keys.
 */
export function parseDefinitionBytes(
  bytes: Uint8Array,
  format: DefinitionFormat,
  limits: ParseLimits = DEFAULT_PARSE_LIMITS,
): ParseResult {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return fail('', 'encoding', 'the definition is not valid UTF-8');
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return format === 'json' ? parseJson(text, limits) : parseYaml(text, limits);
}

function fail(field: string, constraint: string, message: string): ParseResult {
  return { ok: false, problems: [{ field, constraint, message }] };
}

function tooDeep(limits: ParseLimits): ParseResult {
  const message = `maps and lists nest deeper than the limit of ${limits.maxDepth} levels: flatten the definition`;
  return {
    ok: false,
    problems: [{ field: '', constraint: 'too_deep', message, limit: limits.maxDepth }],
  };
}

function parseJson(text: string, limits: ParseLimits): ParseResult {
  // Measured on the text first: parsing, and every walk after it, may recurse per level.
  if (jsonTextDepth(text, limits.maxDepth) > limits.maxDepth) return tooDeep(limits);
  let value: unknown;
  try {
    value = JSON.parse(text, (key, v: unknown) => {
      if (key === '__proto__') throw new SyntaxError('the key "__proto__" is not allowed');
      return v;
    });
  } catch (error) {
    if (error instanceof RangeError) return tooDeep(limits);
    return fail('', 'syntax', `invalid JSON: ${(error as Error).message}`);
  }
  const duplicate = findDuplicateKey(text);
  if (duplicate) {
    const { key, line, column } = duplicate;
    return {
      ok: false,
      problems: [
        {
          field: '',
          constraint: 'duplicate_key',
          message: `the key ${JSON.stringify(key)} appears twice in one object: keep one`,
          line,
          column,
        },
      ],
    };
  }
  return { ok: true, value };
}

function parseYaml(text: string, limits: ParseLimits): ParseResult {
  // Composing a document recurses once per level (and reports a stack overflow as a syntax
  // error); the concrete syntax tree is built with a stack of its own, so measure it first.
  if (yamlCstDepth(new Parser().parse(text), limits.maxDepth) > limits.maxDepth) {
    return tooDeep(limits);
  }
  let doc;
  try {
    doc = parseDocument(text, { uniqueKeys: true, version: '1.2', merge: false, strict: true });
  } catch (error) {
    if (error instanceof RangeError) return tooDeep(limits);
    throw error;
  }
  if (doc.errors.length > 0) {
    return {
      ok: false,
      problems: doc.errors.map((e) => ({
        field: '',
        constraint: e.code === 'DUPLICATE_KEY' ? 'duplicate_key' : 'syntax',
        message: e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, ''),
        ...(e.linePos ? { line: e.linePos[0].line, column: e.linePos[0].col } : {}),
      })),
    };
  }
  const problems = checkYamlNodes(doc.contents, limits);
  if (problems.length > 0) return { ok: false, problems };
  try {
    return { ok: true, value: doc.toJS({ maxAliasCount: limits.maxAliasCount }) };
  } catch (error) {
    if (error instanceof ReferenceError || error instanceof RangeError) {
      return fail('', 'aliases', `aliases expand too much (at most ${limits.maxAliasCount})`);
    }
    throw error;
  }
}

/** Depth, tags, keys and alias count of a YAML node tree, walked without recursion. */
function checkYamlNodes(root: unknown, limits: ParseLimits): DefinitionProblem[] {
  const problems: DefinitionProblem[] = [];
  const stack: [unknown, number][] = [[root, 0]];
  let aliases = 0;
  while (stack.length > 0 && problems.length < 20) {
    const [node, depth] = stack.pop()!;
    if (!node) continue;
    if (isAlias(node)) {
      aliases++;
      continue;
    }
    const tag = (node as Node).tag;
    if (tag !== undefined && !ALLOWED_TAGS.has(tag)) {
      problems.push({ field: '', constraint: 'tag', message: `custom tag ${tag} is not allowed` });
    }
    if (depth > limits.maxDepth) {
      problems.push({
        field: '',
        constraint: 'too_deep',
        message: `maps and lists nest deeper than the limit of ${limits.maxDepth} levels`,
      });
      continue;
    }
    if (isMap(node)) {
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        if (!isScalar(pair.key)) {
          problems.push({
            field: '',
            constraint: 'key',
            message: 'map keys must be plain strings',
          });
        } else if (String(pair.key.value) === '__proto__') {
          problems.push({
            field: '',
            constraint: 'forbidden_key',
            message: 'the key "__proto__" is not allowed',
          });
        } else stack.push([pair.value, depth + 1]);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) stack.push([item, depth + 1]);
    }
  }
  if (aliases > limits.maxAliasCount) {
    problems.push({
      field: '',
      constraint: 'aliases',
      message: `too many aliases (${aliases}; at most ${limits.maxAliasCount}): is this an alias bomb?`,
    });
  }
  return problems;
}
