import { didYouMean, suggestion } from '@weft/core';
import { errorAt, type Site } from './errors.js';
import { checkKey, formatKey, type Key } from './keys.js';
import type { Root, Scope } from './roots.js';
import { ACCESSOR, isPlainObject, readOwnData, typeName } from './values.js';

/** A compiled expression: evaluates against a scope. */
export type Evaluate = (scope: Scope) => unknown;

/** One `.name` / `[key]` step of a path. */
export interface PathSegment {
  /** The key, when it is a literal. */
  readonly key?: Key;
  /** Evaluates the key, when it is computed. */
  readonly compute?: Evaluate;
  /** The computed key reads a secret: messages show `[***]` instead of its value. */
  readonly hideKey?: boolean;
  /** Where the key expression is (for errors about a computed key). */
  readonly keySite: Site;
  /** The path up to and including this segment (for errors about reading it). */
  readonly site: Site;
}

/** A path: a base (a root, or any expression) followed by member segments. */
export interface PathSpec {
  /** How the base is written: the root name, or `(expression)`. */
  readonly label: string;
  /** The root, when the base is one. */
  readonly root?: Root;
  readonly base: Evaluate;
  readonly segments: readonly PathSegment[];
  /** The whole path as written, e.g. `steps.fetch.output[inputs.key]`. */
  readonly written: string;
  readonly site: Site;
}

const MAX_LISTED_KEYS = 10;

/**
 * Walks a path with every check, building precise errors. With `optional` (the operand of
 * `default`), a missing member or a member of `null` gives `undefined` instead of an error;
 * type errors, forbidden keys and accessors are errors either way. This is the slow path: the
 * compiled fast path falls back to it whenever anything is not plain data.
 */
export function walkPath(spec: PathSpec, scope: Scope, optional: boolean): unknown {
  let value = spec.base(scope);
  if (value === undefined) {
    if (optional) return undefined;
    throw missingRoot(spec);
  }
  let path = spec.label;
  const segments = spec.segments;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const key =
      segment.compute === undefined
        ? segment.key!
        : checkKey(segment.compute(scope), segment.keySite);
    const shown = segment.hideKey === true ? '[***]' : formatKey(key);
    const next = path + shown;
    if (value === null) {
      if (optional) return undefined;
      throw errorAt(segment.site, 'null', `${spec.written} cannot be read: ${path} is null`);
    }
    const item = readMember(value, key, path, shown, segment.site);
    if (item === undefined) {
      if (optional) return undefined;
      const shownKey = segment.hideKey === true ? undefined : key;
      throw missingMember(
        spec,
        segment.site,
        value,
        shownKey,
        path,
        next,
        i === segments.length - 1,
      );
    }
    value = item;
    path = next;
  }
  if (typeof value === 'function') {
    throw errorAt(spec.site, 'type', `${spec.written} is a function; only data can be read`);
  }
  return value;
}

/** Reads `key` of `container` (not null/undefined) by the allow-list rules; `undefined` = missing. */
function readMember(
  container: unknown,
  key: Key,
  path: string,
  shown: string,
  site: Site,
): unknown {
  let item: unknown;
  if (Array.isArray(container)) {
    if (typeof key !== 'number') {
      const hint = key === 'length' ? `; write ${path} | length` : `; cannot read ${shown}`;
      throw errorAt(
        site,
        'type',
        `${path} is an array, indexed by integers only${hint}`,
        key === 'length' ? 'length' : undefined,
      );
    }
    item = readOwnData(container, key);
  } else if (isPlainObject(container)) {
    item = readOwnData(container, String(key));
  } else {
    const hint =
      key === 'length' && typeof container === 'string' ? `; write ${path} | length` : '';
    throw errorAt(
      site,
      'type',
      `${path} is a ${typeName(container)}, which has no members; cannot read ${shown}${hint}`,
    );
  }
  if (item === ACCESSOR) {
    throw errorAt(
      site,
      'forbidden_property',
      `${path}${shown} is an accessor property; only data properties can be read`,
    );
  }
  if (typeof item === 'function') {
    throw errorAt(site, 'type', `${path}${shown} is a function; only data can be read`);
  }
  return item;
}

function missingRoot(spec: PathSpec): Error {
  const site = { ...spec.site, length: spec.label.length };
  const hint = spec.root === 'item' ? ' (item is set only inside for_each)' : '';
  if (spec.segments.length === 0)
    return errorAt(site, 'defined', `${spec.written} is not defined${hint}`);
  return errorAt(
    spec.site,
    'defined',
    `${spec.written} is not defined: ${spec.label} is not set${hint}`,
  );
}

function missingMember(
  spec: PathSpec,
  site: Site,
  container: unknown,
  key: Key | undefined,
  parent: string,
  path: string,
  last: boolean,
): Error {
  const stopped = last && path === spec.written ? '' : `: ${path} is missing`;
  if (Array.isArray(container)) {
    const count = `${container.length} element${container.length === 1 ? '' : 's'}`;
    return errorAt(
      site,
      'defined',
      `${spec.written} is not defined${stopped} (${parent} has ${count})`,
    );
  }
  const keys = Object.keys(container as object);
  const listed = keys.length === 0 ? `${parent} is empty` : `${parent} has: ${listKeys(keys)}`;
  // One- and two-letter keys are one edit away from everything: only suggest a different case.
  const candidates =
    typeof key !== 'string'
      ? []
      : key.length >= 3
        ? keys
        : keys.filter((k) => k.toLowerCase() === key.toLowerCase());
  const best = typeof key === 'string' ? didYouMean(key, candidates) : undefined;
  const hint = typeof key === 'string' ? suggestion(key, candidates) : '';
  return errorAt(
    site,
    'defined',
    `${spec.written} is not defined${stopped} (${listed})${hint}`,
    best,
  );
}

function listKeys(keys: readonly string[]): string {
  const shown = keys.slice(0, MAX_LISTED_KEYS).join(', ');
  return keys.length > MAX_LISTED_KEYS
    ? `${shown}, … ${keys.length - MAX_LISTED_KEYS} more`
    : shown;
}
