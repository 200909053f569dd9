import type { Evaluate } from './access.js';
import { compileExpression } from './compile.js';
import { errorAt, type Site } from './errors.js';
import { lexPart } from './lexer.js';
import { LIMITS } from './limits.js';
import { parseExpression } from './parser.js';
import { collectReferences, type Reference } from './references.js';
import type { Scope } from './roots.js';
import { toText } from './stringify.js';

/**
 * A template compiled once, evaluated many times. `kind` is `literal` when the source has no
 * `{{ }}` (evaluates to the source itself), `expression` when the source is exactly one
 * `{{ expr }}` (evaluates to the expression's typed value), `text` otherwise (evaluates to a
 * string: the text with every part's value interpolated).
 */
export interface CompiledTemplate {
  readonly source: string;
  readonly kind: 'literal' | 'expression' | 'text';
  /** Every path the template reads, in source order. */
  readonly references: readonly Reference[];
  /**
   * True when any reference has root `secrets`: the template's value is then tainted (it may
   * carry a secret through any filter or operator).
   */
  readonly readsSecrets: boolean;
  /**
   * Evaluates against `scope`; throws {@link TemplateError}. The result is data: it is never
   * evaluated again, even if it looks like a template, and it may share structure with `scope`.
   */
  evaluate(scope: Scope): unknown;
}

interface Part {
  readonly evaluate: Evaluate;
  readonly site: Site;
}

/** Compiles a template without the cache: splits it into text and `{{ }}` parts and compiles each. */
export function compileUncached(source: string): CompiledTemplate {
  if (source.length > LIMITS.maxTemplateLength) {
    throw errorAt(
      { field: source.slice(0, 40), offset: 0, length: source.length },
      'limit',
      `template is ${source.length} characters long, more than ${LIMITS.maxTemplateLength} (maxTemplateLength)`,
    );
  }
  const texts: string[] = [];
  const parts: Part[] = [];
  const references: Reference[] = [];
  let position = 0;
  for (let open = source.indexOf('{{'); open >= 0; open = source.indexOf('{{', position)) {
    if (parts.length === LIMITS.maxParts) {
      throw errorAt(
        { field: '{{', offset: open, length: 2 },
        'limit',
        `template has more than ${LIMITS.maxParts} {{ }} parts (maxParts)`,
      );
    }
    texts.push(source.slice(position, open));
    const { tokens, end } = lexPart(source, open + 2, open);
    const node = parseExpression(tokens, source);
    references.push(...collectReferences(node, source));
    const site = {
      field: source.slice(open + 2, end - 2).trim(),
      offset: open,
      length: end - open,
    };
    parts.push({ evaluate: compileExpression(node, source), site });
    position = end;
  }
  texts.push(source.slice(position));
  const readsSecrets = references.some((reference) => reference.root === 'secrets');
  const frozen = Object.freeze(references.map((reference) => Object.freeze(reference)));
  const [first] = parts;
  const kind =
    first === undefined
      ? 'literal'
      : parts.length === 1 && texts.join('') === ''
        ? 'expression'
        : 'text';
  const evaluate =
    first === undefined
      ? () => source
      : kind === 'expression'
        ? first.evaluate
        : interpolate(texts, parts);
  return Object.freeze({ source, kind, references: frozen, readsSecrets, evaluate });
}

/** A text template's evaluator: literal text and part values (as {@link toText}) joined. */
function interpolate(texts: readonly string[], parts: readonly Part[]): Evaluate {
  const site: Site = { field: 'template', offset: 0, length: 0 };
  return (scope) => {
    let out = texts[0]!;
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      out += toText(part.evaluate(scope), part.site) + texts[i + 1]!;
      if (out.length > LIMITS.maxStringLength) {
        throw errorAt(
          { ...site, offset: part.site.offset, length: part.site.length },
          'limit',
          `text template result is longer than ${LIMITS.maxStringLength} characters (maxStringLength)`,
        );
      }
    }
    return out;
  };
}
