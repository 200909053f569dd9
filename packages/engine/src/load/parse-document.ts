import {
  Composer,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  Parser,
  YAMLParseError,
  type CST,
  type Document,
  type Node,
} from 'yaml';
import { yamlCstDepth } from '@weft/core';
import type { Path } from '../diagnostics.js';
import { Locator } from './locate.js';
import type { CompiledLoadOptions } from './options.js';
import { Reporter } from './reporter.js';

/** Tags a workflow file may spell out: YAML's own core types, nothing that builds objects. */
const ALLOWED_TAGS = new Set(
  ['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((t) => `tag:yaml.org,2002:${t}`),
);

/** Keys refused anywhere in a file: they could reach an object prototype. */
const FORBIDDEN_KEYS = new Set(['__proto__']);

/** What {@link parseWorkflowSource} gives back. */
export interface ParsedSource {
  /** The plain data, when the file parsed without errors. */
  value?: unknown;
  reporter: Reporter;
  locator: Locator;
}

/**
 * Turns the bytes of a YAML or JSON file into plain data, refusing hostile input with clear
 * errors: files over the size limit, invalid UTF-8, syntax errors, duplicate keys, alias bombs,
 * deep nesting, custom tags and `__proto__` keys.
 */
export function parseWorkflowSource(
  input: string | Uint8Array,
  options: CompiledLoadOptions,
): ParsedSource {
  const lines = new LineCounter();
  const size = typeof input === 'string' ? Buffer.byteLength(input) : input.byteLength;
  if (size > options.maxFileSize) {
    const reporter = new Reporter(options.file, undefined);
    reporter.error(
      [],
      'too_large',
      `file is ${size} bytes, over the limit of ${options.maxFileSize} bytes (raise it with --max-file-size)`,
      { expected: `at most ${options.maxFileSize} bytes`, found: `${size} bytes` },
    );
    return { reporter, locator: new Locator(undefined, lines, '') };
  }
  let source: string;
  try {
    source =
      typeof input === 'string' ? input : new TextDecoder('utf-8', { fatal: true }).decode(input);
  } catch {
    const reporter = new Reporter(options.file, undefined);
    reporter.error([], 'encoding', 'file is not valid UTF-8');
    return { reporter, locator: new Locator(undefined, lines, '') };
  }
  if (source.charCodeAt(0) === 0xfeff) source = source.slice(1);
  // Composing a document recurses once per level (and reports a stack overflow as a syntax
  // error); the concrete syntax tree is built with a stack of its own, so measure it first. The
  // tokens are parsed once, for both the measure and the document.
  const tokens = Array.from(new Parser(lines.addNewLine).parse(source));
  if (yamlCstDepth(tokens, options.maxDepth) > options.maxDepth) {
    const reporter = new Reporter(options.file, undefined);
    reporter.error(
      [],
      'too_deep',
      `maps and lists nest deeper than the limit of ${options.maxDepth} levels: flatten the file`,
      { expected: `at most ${options.maxDepth} levels`, found: 'more' },
    );
    return { reporter, locator: new Locator(undefined, lines, '') };
  }

  let doc: Document | undefined;
  let crashed = false;
  try {
    doc = composeDocument(tokens, source.length);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    crashed = true;
  }
  const locator = new Locator(doc, lines, source);
  const reporter = new Reporter(options.file, locator);
  if (crashed || !doc) {
    reporter.errorAtOffset(0, 'too_deep', `nesting is too deep (the limit is ${options.maxDepth})`);
    return { reporter, locator };
  }
  for (const error of doc.errors) {
    reporter.errorAtOffset(error.pos[0], yamlCode(error.code), firstLine(error.message));
  }
  if (reporter.errorCount > 0) return { reporter, locator };
  checkNodes(doc, options, reporter);
  if (reporter.errorCount > 0) return { reporter, locator };
  try {
    return { value: doc.toJS({ maxAliasCount: options.maxAliasCount }), reporter, locator };
  } catch (error) {
    if (error instanceof ReferenceError || error instanceof RangeError) {
      reporter.error(
        [],
        'aliases',
        `aliases expand too much (at most ${options.maxAliasCount} expansions): is this an alias bomb?`,
      );
      return { reporter, locator };
    }
    throw error;
  }
}

/**
 * The one document of a file from its parsed tokens: what `parseDocument` from `yaml` does after
 * parsing (errors stay plain, as with `prettyErrors: false`), so the text is parsed only once.
 */
function composeDocument(tokens: readonly CST.Token[], end: number): Document {
  const composer = new Composer({
    uniqueKeys: true,
    prettyErrors: false,
    version: '1.2',
    merge: false,
    strict: true,
  });
  let doc: Document | undefined;
  for (const next of composer.compose(tokens, true, end)) {
    if (!doc) {
      doc = next;
    } else {
      doc.errors.push(
        new YAMLParseError(
          [next.range[0], next.range[1]],
          'MULTIPLE_DOCS',
          'Source contains multiple documents; please use YAML.parseAllDocuments()',
        ),
      );
      break;
    }
  }
  // `compose(tokens, true)` always yields a document, at the latest when it ends.
  return doc!;
}

/** Walks the node tree without recursion: depth, tags and keys. */
function checkNodes(doc: Document, options: CompiledLoadOptions, reporter: Reporter): void {
  const stack: { node: unknown; depth: number; path: Path }[] = [
    { node: doc.contents, depth: 0, path: [] },
  ];
  let aliases = 0;
  while (stack.length > 0) {
    const { node, depth, path } = stack.pop()!;
    if (!node) continue;
    if (isAlias(node)) {
      aliases++;
      continue;
    }
    const tag = (node as Node).tag;
    if (tag !== undefined && !ALLOWED_TAGS.has(tag)) {
      reporter.error(path, 'tag', `custom tag ${tag} is not allowed in workflow files`, {
        expected: 'plain YAML values',
        found: `tag ${tag}`,
      });
    }
    if (depth > options.maxDepth) {
      reporter.error(path, 'too_deep', `nesting is deeper than the limit of ${options.maxDepth}`);
      continue;
    }
    if (isMap(node)) {
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        if (!isScalar(pair.key)) {
          reporter.error(path, 'key', 'map keys must be plain strings, not collections or aliases');
          continue;
        }
        const key = String(pair.key.value);
        if (FORBIDDEN_KEYS.has(key)) {
          reporter.error([...path, key], 'forbidden_key', `the key "${key}" is not allowed`, {
            key: true,
          });
          continue;
        }
        stack.push({ node: pair.value, depth: depth + 1, path: [...path, key] });
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, index) =>
        stack.push({ node: item, depth: depth + 1, path: [...path, index] }),
      );
    }
  }
  if (aliases > options.maxAliasCount) {
    reporter.error(
      [],
      'aliases',
      `too many aliases (${aliases}; at most ${options.maxAliasCount})`,
    );
  }
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
}

function yamlCode(code: string): string {
  return code === 'DUPLICATE_KEY' ? 'duplicate_key' : 'syntax';
}
