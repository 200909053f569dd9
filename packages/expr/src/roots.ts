/** A name that may start a path: the data a template can read (docs/workflow-language.md#what-a-template-can-read). */
export type Root = 'inputs' | 'env' | 'secrets' | 'steps' | 'trigger' | 'item';

/** Every {@link Root}, in documentation order. */
export const ROOTS: readonly Root[] = Object.freeze([
  'inputs',
  'env',
  'secrets',
  'steps',
  'trigger',
  'item',
] as const);

const ROOT_SET: ReadonlySet<string> = new Set(ROOTS);

/** True when `name` is one of {@link ROOTS}. */
export function isRoot(name: string): name is Root {
  return ROOT_SET.has(name);
}

/**
 * The data a template is evaluated against. Each root is usually a plain object (`item` may be
 * any value); a root that is absent (or `undefined`) is missing, and reading it is an error
 * unless absorbed by `| default(x)`.
 */
export interface Scope {
  inputs?: unknown;
  env?: unknown;
  secrets?: unknown;
  steps?: unknown;
  trigger?: unknown;
  item?: unknown;
}

/** Reads one root of a scope (the scope object is trusted: it is built by the engine). */
export function readRoot(scope: Scope, root: Root): unknown {
  switch (root) {
    case 'inputs':
      return scope.inputs;
    case 'env':
      return scope.env;
    case 'secrets':
      return scope.secrets;
    case 'steps':
      return scope.steps;
    case 'trigger':
      return scope.trigger;
    case 'item':
      return scope.item;
  }
}

/** Keywords that are values, not roots. */
export const LITERAL_KEYWORDS: ReadonlyMap<string, boolean | null> = new Map<
  string,
  boolean | null
>([
  ['true', true],
  ['false', false],
  ['null', null],
]);

/** Words from other languages that mean one of our literals, and the word to use instead. */
export const FOREIGN_LITERALS: ReadonlyMap<string, string> = new Map([
  ['undefined', 'null'],
  ['None', 'null'],
  ['nil', 'null'],
  ['True', 'true'],
  ['False', 'false'],
]);
