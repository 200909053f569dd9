import { didYouMean, suggestion } from '@weft/core';
import { errorAt, type Site, type TemplateError } from './errors.js';
import { FILTER_NAMES, type FilterSpec } from './filters.js';
import { end } from './grammar.js';
import type { Token } from './lexer.js';
import { FOREIGN_LITERALS, LITERAL_KEYWORDS, ROOTS } from './roots.js';

/**
 * A name that is neither a root nor a keyword. Explains the likely mistake: a literal of another
 * language (`undefined`, `None`), a dashed key read as a subtraction (`steps.fetch-data`), or a
 * typo of a root (did you mean).
 */
export function unknownNameError(
  site: Site,
  name: string,
  before: Token | undefined,
  beforeThat: Token | undefined,
): TemplateError {
  const foreign = FOREIGN_LITERALS.get(name);
  if (foreign !== undefined) {
    return errorAt(site, 'unknown_root', `unknown name "${name}": write \`${foreign}\``, foreign);
  }
  const glued =
    before !== undefined &&
    before.type === 'op' &&
    before.value === '-' &&
    end(before) === site.offset &&
    beforeThat?.type === 'name' &&
    end(beforeThat) === before.offset;
  if (glued) {
    const key = `${String(beforeThat.value)}-${name}`;
    return errorAt(
      site,
      'unknown_root',
      `unknown name "${name}": "${key}" reads as ${String(beforeThat.value)} minus ${name}; write ['${key}'] for a key with a dash`,
    );
  }
  const candidates = [...ROOTS, ...LITERAL_KEYWORDS.keys()];
  return errorAt(
    site,
    'unknown_root',
    `unknown name "${name}": expected one of ${ROOTS.join(', ')}${suggestion(name, candidates)}`,
    didYouMean(name, candidates),
  );
}

/** A filter name that is not one of {@link FILTER_NAMES}. */
export function unknownFilterError(site: Site, name: string): TemplateError {
  return errorAt(
    site,
    'unknown_filter',
    `unknown filter "${name}": expected one of ${FILTER_NAMES.join(', ')}${suggestion(name, FILTER_NAMES)}`,
    didYouMean(name, FILTER_NAMES),
  );
}

/** A filter given a number of arguments outside its arity. */
export function arityError(
  site: Site,
  name: string,
  spec: FilterSpec,
  found: number,
): TemplateError {
  const expected =
    spec.minArgs === spec.maxArgs ? `${spec.minArgs}` : `${spec.minArgs} to ${spec.maxArgs}`;
  return errorAt(
    site,
    'arity',
    `filter ${name} takes ${expected} argument(s), found ${found}: ${spec.usage}`,
  );
}
