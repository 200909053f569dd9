import { walkPath, type Evaluate, type PathSegment, type PathSpec } from './access.js';
import { mentionsRoot, type MemberNode, type Node, type RootNode } from './ast.js';
import type { Site } from './errors.js';
import { formatKey, type Key } from './keys.js';
import { isDeepData } from './frozen-data.js';
import type { Root, Scope } from './roots.js';

/** Compiles any node; supplied by the caller to compile a path's base and computed keys. */
export type CompileNode = (node: Node) => Evaluate;

const OBJECT_PROTOTYPE: unknown = Object.prototype;
const getPrototypeOf = Object.getPrototypeOf;
const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const isArray = Array.isArray;
const hasOwn = Object.hasOwn;

const ROOT_READERS: Readonly<Record<Root, Evaluate>> = {
  inputs: (scope) => scope.inputs,
  env: (scope) => scope.env,
  secrets: (scope) => scope.secrets,
  steps: (scope) => scope.steps,
  trigger: (scope) => scope.trigger,
  item: (scope) => scope.item,
};

/**
 * Compiles a path (a root or member node and the members under it) to a closure. A path of a root
 * and literal keys only gets the fast path: one loop over the keys that checks each step is
 * plain data — a plain object for a name, an array for an index, an own data property (getters are
 * detected by their descriptor, never called) — and hands over to {@link walkPath} for anything
 * else, which either finds the value after all (a numeric key of an object) or throws the precise
 * error. With `optional` (the operand of `default`), missing values give `undefined`.
 */
export function compilePath(
  node: RootNode | MemberNode,
  source: string,
  compile: CompileNode,
  optional: boolean,
): Evaluate {
  const spec = pathSpec(node, source, compile);
  const slow = (scope: Scope): unknown => walkPath(spec, scope, optional);
  const keys = spec.segments.map((segment) => segment.key);
  if (spec.root === undefined || !keys.every((key) => key !== undefined)) return slow;
  return fastPath(ROOT_READERS[spec.root], keys, slow);
}

/** Path depth up to which the fast path looks for verified frozen data (see freezeData). */
const BRAND_LOOKUP_DEPTH = 2;

function fastPath(readBase: Evaluate, keys: readonly Key[], slow: Evaluate): Evaluate {
  const count = keys.length;
  return (scope) => {
    let value = readBase(scope);
    let i = 0;
    // Checked reads, until the walk enters a tree verified by freezeData. Looking for one costs
    // a WeakSet lookup, so only the first objects of the path are looked up.
    for (; i < count; i++) {
      if (typeof value !== 'object' || value === null) return slow(scope);
      if (i < BRAND_LOOKUP_DEPTH && isDeepData(value)) break;
      const key = keys[i]!;
      if (typeof key === 'number') {
        if (!isArray(value)) return slow(scope);
      } else {
        const prototype: unknown = getPrototypeOf(value);
        if (prototype !== OBJECT_PROTOTYPE && prototype !== null) return slow(scope);
      }
      // An accessor's descriptor has no `value`: it reads as undefined and takes the slow path,
      // which reports it. The getter itself is never called.
      value = getOwnPropertyDescriptor(value, key)?.value;
    }
    // Inside verified frozen data every object is a plain object or an array with data
    // properties only: a plain load is safe.
    for (; i < count; i++) {
      if (typeof value !== 'object' || value === null) return slow(scope);
      const key = keys[i]!;
      if (isArray(value) !== (typeof key === 'number') || !hasOwn(value, key)) return slow(scope);
      value = (value as Record<Key, unknown>)[key];
    }
    if (value === undefined || typeof value === 'function') return slow(scope);
    return value;
  };
}

/** Flattens a member chain into its base and segments. */
function pathSpec(node: RootNode | MemberNode, source: string, compile: CompileNode): PathSpec {
  const members: MemberNode[] = [];
  let base: Node = node;
  while (base.type === 'member') {
    members.unshift(base);
    base = base.object;
  }
  const text = (site: { offset: number; length: number }): string =>
    source.slice(site.offset, site.offset + site.length);
  const label = base.type === 'root' ? base.name : `(${text(base)})`;
  const segments: PathSegment[] = [];
  let written = label;
  for (const member of members) {
    const key = member.key;
    const keySite: Site = { field: text(key), offset: key.offset, length: key.length };
    const site: Site = { field: text(member), offset: member.offset, length: member.length };
    if (key.type === 'literal') {
      const value = key.value as Key;
      segments.push({ key: value, keySite, site });
      written += formatKey(value);
    } else {
      const hideKey = mentionsRoot(key, 'secrets');
      segments.push({ compute: compile(key), hideKey, keySite, site });
      written += `[${text(key)}]`;
    }
  }
  const site: Site = { field: written, offset: node.offset, length: node.length };
  const evaluateBase = base.type === 'root' ? ROOT_READERS[base.name] : compile(base);
  return base.type === 'root'
    ? { label, root: base.name, base: evaluateBase, segments, written, site }
    : { label, base: evaluateBase, segments, written, site };
}
