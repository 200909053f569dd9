import { ValidationError } from '@weft/core';

/**
 * Machine-readable reason of a {@link TemplateError} (`details.constraint`).
 *
 * - `syntax`: the template or expression cannot be parsed (including JavaScript-isms).
 * - `unknown_root`: a name that is not one of {@link ROOTS}.
 * - `unknown_filter` / `arity`: a filter that does not exist / got the wrong number of arguments.
 * - `computed_secret`: `secrets` read without a literal name.
 * - `forbidden_property`: `constructor`, `__proto__`, `prototype`, or an accessor property.
 * - `defined`: a reference to something missing.
 * - `null`: a member read on `null`.
 * - `type`: an operand, filter input or index of the wrong type.
 * - `range`: an index or argument outside its allowed range.
 * - `arithmetic`: division by zero or a non-finite result.
 * - `limit`: one of the {@link LIMITS} was exceeded.
 */
export type TemplateErrorConstraint =
  | 'syntax'
  | 'unknown_root'
  | 'unknown_filter'
  | 'arity'
  | 'computed_secret'
  | 'forbidden_property'
  | 'defined'
  | 'null'
  | 'type'
  | 'range'
  | 'arithmetic'
  | 'limit';

/** Where an error happened and what it is about; input of {@link TemplateError}. */
export interface TemplateErrorInit {
  /** The expression source or reference path involved. */
  field: string;
  constraint: TemplateErrorConstraint;
  /** Offset of the offending token or sub-expression in the template source string. */
  offset: number;
  /** Length of the offending token or sub-expression. */
  length: number;
  /** A likely intended replacement (a root, filter, key or operator), when there is one. */
  suggestion?: string | undefined;
}

/**
 * A template failed to compile or to evaluate (`VALIDATION`). `details` carries `field`,
 * `constraint`, `offset`, `length` and, when known, `suggestion`; the same values are also
 * properties of the error. Offsets are positions in the template source string: of the offending
 * token for compile errors, of the failing sub-expression for evaluation errors.
 */
export class TemplateError extends ValidationError {
  /** Offset of the offending token or sub-expression in the template source. */
  readonly offset: number;
  /** Length of the offending token or sub-expression. */
  readonly length: number;
  /** A likely intended replacement, when one is known. */
  readonly suggestion?: string;

  constructor(message: string, init: TemplateErrorInit) {
    const details: TemplateErrorInit = {
      field: init.field,
      constraint: init.constraint,
      offset: init.offset,
      length: init.length,
    };
    if (init.suggestion !== undefined) details.suggestion = init.suggestion;
    super(message, { ...details });
    // ValidationError types `name` as the literal 'ValidationError'; the runtime value is ours.
    (this as { name: string }).name = 'TemplateError';
    this.offset = init.offset;
    this.length = init.length;
    if (init.suggestion !== undefined) this.suggestion = init.suggestion;
  }

  /** The `constraint` of the details, typed. */
  get constraint(): TemplateErrorConstraint {
    return this.details.constraint as TemplateErrorConstraint;
  }
}

/** A source span: where something is in the template source string. */
export interface Site {
  /** Text used as `details.field`. */
  readonly field: string;
  readonly offset: number;
  readonly length: number;
}

/** Builds a {@link TemplateError} located at `site`. */
export function errorAt(
  site: Site,
  constraint: TemplateErrorConstraint,
  message: string,
  suggestion?: string,
): TemplateError {
  return new TemplateError(message, {
    field: site.field,
    constraint,
    offset: site.offset,
    length: site.length,
    suggestion,
  });
}
