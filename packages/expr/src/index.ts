/**
 * `@weft/expr`: the `{{ }}` template language of weft workflows (docs/workflow-language.md#templates) — a hand-written
 * lexer and Pratt parser, a static reference extractor, and an allow-list evaluator compiled to
 * closures. See `ARCHITECTURE.md` in this package for the language and its decisions.
 */
import { LruCache } from './cache.js';
import { TEMPLATE_CACHE_SIZE } from './limits.js';
import type { Scope } from './roots.js';
import { compileUncached, type CompiledTemplate } from './template.js';

export { TemplateError, type TemplateErrorConstraint, type TemplateErrorInit } from './errors.js';
export { FILTER_NAMES as FILTERS, type FilterName } from './filters.js';
export { LIMITS, TEMPLATE_CACHE_SIZE, type TemplateLimits } from './limits.js';
export type { Reference } from './references.js';
export { ROOTS, type Root, type Scope } from './roots.js';
export type { CompiledTemplate } from './template.js';
export { freezeData } from './frozen-data.js';
export { isTruthy } from './values.js';

const cache = new LruCache<string, CompiledTemplate>(TEMPLATE_CACHE_SIZE);

/**
 * Compiles a template (see {@link CompiledTemplate}); throws {@link TemplateError} with the
 * position of the offending token. Results are cached by source (the
 * {@link TEMPLATE_CACHE_SIZE} most recently used), so compiling the same source twice returns
 * the same object.
 */
export function compileTemplate(source: string): CompiledTemplate {
  let template = cache.get(source);
  if (template === undefined) {
    template = compileUncached(source);
    cache.set(source, template);
  }
  return template;
}

/** True when `value` contains `{{`, i.e. is a template rather than a literal string. */
export function hasTemplate(value: string): boolean {
  return value.includes('{{');
}

/** Compiles `source` (cached) and evaluates it against `scope`; throws {@link TemplateError}. */
export function evaluateTemplate(source: string, scope: Scope): unknown {
  return compileTemplate(source).evaluate(scope);
}
