import { MAX_DATA_DEPTH } from './limits.js';
import { isPlainObject } from './values.js';

/**
 * Roots of verified, frozen data trees: each is a plain object or array, frozen, holding only
 * data properties, and every object below it is the same. Nothing in such a tree can ever gain an
 * accessor, change a value or change its prototype (frozen properties are non-configurable and
 * frozen objects are not extensible), so the evaluator's fast path reads inside it with plain
 * property loads instead of `Object.getOwnPropertyDescriptor` — sound, and about twice as fast.
 */
const deepData = new WeakSet<object>();

/** True when `value` is the root of a tree verified and frozen by {@link freezeData}. */
export function isDeepData(value: object): boolean {
  return deepData.has(value);
}

/**
 * Deep-freezes the plain objects and arrays reachable from `value` through data properties and
 * marks every subtree that is pure data (plain objects, arrays and primitives only, no accessor,
 * no cycle) as verified; templates then read it on their fastest path. Returns `value`.
 *
 * Optional: unfrozen data is read just as correctly, only slower. Class instances, dates, maps
 * and the like are left alone (and keep the objects holding them off the fastest path). Freezing
 * is permanent: code that later tries to mutate the data fails.
 */
export function freezeData<T>(value: T): T {
  verify(value, new Set(), 0);
  return value;
}

/** Freezes `value`'s tree; true when it is pure data (primitives count as pure). */
function verify(value: unknown, visiting: Set<object>, depth: number): boolean {
  if (typeof value !== 'object' || value === null) return typeof value !== 'function';
  if (deepData.has(value)) return true;
  // A cycle, or data too deep to walk: frozen as far as reached, never marked.
  if (visiting.has(value) || depth >= MAX_DATA_DEPTH) return false;
  const isArray = Array.isArray(value);
  if (!isArray && !isPlainObject(value)) return false;
  const descriptors = Object.getOwnPropertyDescriptors(value);
  Object.freeze(value);
  visiting.add(value);
  let pure = true;
  for (const key of Reflect.ownKeys(descriptors)) {
    const descriptor = descriptors[key as keyof typeof descriptors]!;
    if (!('value' in descriptor)) pure = false;
    else if (!verify(descriptor.value, visiting, depth + 1)) pure = false;
  }
  visiting.delete(value);
  if (pure) deepData.add(value);
  return pure;
}
