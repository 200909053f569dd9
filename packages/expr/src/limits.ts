/**
 * Bounds on the work a template may cause. Every limit is checked before or while the work is
 * done, and exceeding one raises a {@link TemplateError} with `constraint: 'limit'` that names it.
 */
export interface TemplateLimits {
  /** Maximum length of a template source string, in UTF-16 code units (64 KiB). */
  readonly maxTemplateLength: number;
  /**
   * Maximum nesting depth of one expression: parentheses, prefix operators, operands of binary
   * operators, filter arguments and index brackets each open a level (64).
   */
  readonly maxDepth: number;
  /** Maximum number of syntax-tree nodes in one `{{ }}` expression (1,000). */
  readonly maxNodes: number;
  /** Maximum number of `{{ }}` parts in one template (100). */
  readonly maxParts: number;
  /**
   * Maximum length, in UTF-16 code units, of a string built by the evaluator: the result of `+`
   * concatenation, of the `json` filter, and of a text template (1 MiB = 1,048,576).
   */
  readonly maxStringLength: number;
}

/** The limits every template is held to (see {@link TemplateLimits} for what each one bounds). */
export const LIMITS: TemplateLimits = Object.freeze({
  maxTemplateLength: 64 * 1024,
  maxDepth: 64,
  maxNodes: 1_000,
  maxParts: 100,
  maxStringLength: 1024 * 1024,
});

/**
 * Maximum nesting depth of data walked by `json`, `==`/`!=` and text interpolation. Deeper data
 * (or a cycle, for equality) raises a `limit` error instead of overflowing the stack.
 */
export const MAX_DATA_DEPTH = 1_000;

/** Number of compiled templates kept by the {@link compileTemplate} cache (least recently used out). */
export const TEMPLATE_CACHE_SIZE = 2_000;
