import type {
  BlacklistedTerm,
  MatchPayload,
  Node,
  ParsedPattern,
  TransformerContainer,
  TransformerFn,
} from 'obscenity';
import { obscenityLibrary } from './libraries.js';

/** A text after a transformer chain, and for each of its code units the original's index. */
interface Transformed {
  readonly text: string;
  readonly origin: Int32Array;
}

/**
 * Texts up to this long (the guardrails' default limit) reuse one buffer for the transformed
 * text, 4 MB at most: allocating it per text costs more than the whole pass. Origin maps, only
 * needed once something matched, are kept up to a quarter of that.
 */
const KEPT_TEXT_CHARS = 1024 * 1024;
const KEPT_ORIGIN_CHARS = 256 * 1024;
const EMPTY = new Int32Array(0);

const isHigh = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff;
const isLow = (unit: number): boolean => unit >= 0xdc00 && unit <= 0xdfff;

/**
 * An `obscenity` transformer chain compiled for speed, with the same result as obscenity's own
 * `TransformerSet` (code point by code point, a transformer answering `undefined` drops the
 * character): the leading stateless transformers (look-alikes, leet speak, lower case) are
 * folded into one table over the Basic Multilingual Plane, built once; the stateful ones that
 * follow (duplicate collapsing) run per character with fresh state on every text.
 */
export class CompiledTransformers {
  private readonly table = new Int32Array(0x10000);
  private readonly simple: TransformerFn[] = [];
  private readonly stateful: TransformerContainer[];
  /** Reused between texts: allocating them per text costs more than the whole pass. */
  private units = new Uint16Array(0);
  private origin = new Int32Array(0);

  constructor(chain: readonly TransformerContainer[]) {
    let i = 0;
    for (; i < chain.length; i++) {
      const container = chain[i]!;
      if (!('transform' in container)) break;
      this.simple.push(container.transform);
    }
    this.stateful = chain.slice(i);
    for (let unit = 0; unit < 0x10000; unit++) this.table[unit] = this.simpleAt(unit) ?? -1;
  }

  private simpleAt(char: number): number | undefined {
    let value: number | undefined = char;
    for (let k = 0; k < this.simple.length && value !== undefined; k++) {
      value = this.simple[k]!(value);
    }
    return value;
  }

  /**
   * `input` through the chain. With `withOrigin`, `origin` maps each code unit back to the start
   * of its code point in `input` (otherwise it is empty); it is valid until the next call.
   */
  apply(input: string, withOrigin = true): Transformed {
    const length = input.length;
    let { units, origin } = this;
    if (units.length < length * 2) {
      units = new Uint16Array(length * 2);
      if (length <= KEPT_TEXT_CHARS) this.units = units;
    }
    if (!withOrigin) origin = EMPTY;
    else if (origin.length < length * 2) {
      origin = new Int32Array(length * 2);
      if (length <= KEPT_ORIGIN_CHARS) this.origin = origin;
    }
    const table = this.table;
    const stateful = this.stateful.map((container) =>
      'factory' in container ? container.factory() : container,
    );
    let out = 0;
    for (let position = 0; position < length; position++) {
      const start = position;
      const unit = input.charCodeAt(position);
      let char: number | undefined;
      if (isHigh(unit) && position + 1 < length && isLow(input.charCodeAt(position + 1))) {
        const low = input.charCodeAt(++position);
        char = this.simpleAt((unit - 0xd800) * 0x400 + low - 0xdc00 + 0x10000);
      } else {
        const mapped = table[unit]!;
        char = mapped < 0 ? undefined : mapped;
      }
      for (let k = 0; k < stateful.length && char !== undefined; k++) {
        char = stateful[k]!.transform(char);
      }
      if (char === undefined) continue;
      if (char > 0xffff) {
        const offset = char - 0x10000;
        if (withOrigin) origin[out] = origin[out + 1] = start;
        units[out++] = 0xd800 + (offset >> 10);
        units[out++] = 0xdc00 + (offset & 0x3ff);
      } else {
        if (withOrigin) origin[out] = start;
        units[out++] = char;
      }
    }
    return { text: decode(units, out), origin };
  }
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const utf16 = new TextDecoder('utf-16le');

/** The first `count` UTF-16 code units as a string. */
function decode(units: Uint16Array, count: number): string {
  if (LITTLE_ENDIAN) return utf16.decode(units.subarray(0, count));
  let text = '';
  for (let at = 0; at < count; at += 4096) {
    const chunk = units.subarray(at, Math.min(count, at + 4096));
    text += String.fromCharCode.apply(null, chunk as unknown as number[]);
  }
  return text;
}

/** An obscenity pattern as a regular expression source, as obscenity's RegExpMatcher reads it. */
export function patternSource(pattern: ParsedPattern): string {
  let source = pattern.requireWordBoundaryAtStart ? '\\b' : '';
  for (const node of pattern.nodes) source += nodeSource(node);
  return pattern.requireWordBoundaryAtEnd ? `${source}\\b` : source;
}

function nodeSource(node: Node): string {
  const { SyntaxKind } = obscenityLibrary();
  switch (node.kind) {
    case SyntaxKind.Literal:
      return String.fromCodePoint(...node.chars).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    case SyntaxKind.Optional:
      return `(?:${nodeSource(node.childNode)})?`;
    case SyntaxKind.Wildcard:
      return '.';
  }
}

/** Options of {@link ProfanityMatcher}: obscenity's matcher options. */
export interface ProfanityMatcherOptions {
  blacklistedTerms: readonly BlacklistedTerm[];
  whitelistedTerms?: readonly string[];
  blacklistMatcherTransformers?: readonly TransformerContainer[];
  whitelistMatcherTransformers?: readonly TransformerContainer[];
}

/**
 * obscenity's `RegExpMatcher`, same options and same matches, made fast for the common case
 * of clean text: the transformers run as a compiled table ({@link CompiledTransformers}), and
 * one regular expression joining every term's pattern tells at once whether any term can match;
 * only then are the terms matched one by one and the whitelist read, exactly as obscenity does.
 * `profanity-matcher.test.ts` holds it to obscenity's own matches on a corpus.
 */
export class ProfanityMatcher {
  private readonly terms: { id: number; regExp: RegExp }[];
  private readonly any: RegExp;
  private readonly whitelist: readonly string[];
  private readonly blacklistChain: CompiledTransformers;
  private readonly whitelistChain: CompiledTransformers;

  constructor(options: ProfanityMatcherOptions) {
    this.terms = options.blacklistedTerms.map(({ id, pattern }) => ({
      id,
      regExp: new RegExp(patternSource(pattern), 'gs'),
    }));
    this.any = new RegExp(this.terms.map(({ regExp }) => `(?:${regExp.source})`).join('|'), 's');
    this.whitelist = options.whitelistedTerms ?? [];
    this.blacklistChain = new CompiledTransformers(options.blacklistMatcherTransformers ?? []);
    this.whitelistChain = new CompiledTransformers(options.whitelistMatcherTransformers ?? []);
  }

  /** Every match, as obscenity's `RegExpMatcher.getAllMatches` gives them (same order). */
  getAllMatches(input: string): MatchPayload[] {
    if (!this.any.test(this.blacklistChain.apply(input, false).text)) return [];
    const { text, origin } = this.blacklistChain.apply(input);
    let whitelisted: [number, number][] | undefined;
    const matches: MatchPayload[] = [];
    for (const term of this.terms) {
      for (const match of text.matchAll(term.regExp)) {
        const start = origin[match.index]!;
        const end = originalEnd(input, origin[match.index + match[0].length - 1]!);
        whitelisted ??= this.whitelistedIntervals(input);
        if (whitelisted.some(([low, high]) => low <= start && end <= high)) continue;
        matches.push({
          termId: term.id,
          startIndex: start,
          endIndex: end,
          matchLength: [...match[0]].length,
        });
      }
    }
    return matches;
  }

  /** The spans of `input` (inclusive ends) covered by a whitelisted term. */
  private whitelistedIntervals(input: string): [number, number][] {
    const { text, origin } = this.whitelistChain.apply(input);
    const intervals: [number, number][] = [];
    for (const term of this.whitelist) {
      for (let at = text.indexOf(term); at !== -1; at = text.indexOf(term, at + term.length)) {
        intervals.push([origin[at]!, originalEnd(input, origin[at + term.length - 1]!)]);
      }
    }
    return intervals;
  }
}

/** An inclusive end index that ends on a surrogate pair's high half takes the low half too. */
function originalEnd(input: string, end: number): number {
  return end < input.length - 1 && isHigh(input.charCodeAt(end)) && isLow(input.charCodeAt(end + 1))
    ? end + 1
    : end;
}

/** The matcher over obscenity's English dataset with its recommended transformers. */
export function englishProfanityMatcher(): ProfanityMatcher {
  const { englishDataset, englishRecommendedTransformers } = obscenityLibrary();
  return new ProfanityMatcher({ ...englishDataset.build(), ...englishRecommendedTransformers });
}
