import { isDeepStrictEqual } from 'node:util';

/** The value at a dot path (`detail.order.id`), or undefined when a segment is missing. */
export function valueAt(value: unknown, path: string): unknown {
  let current = value;
  for (const segment of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    if (!Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

/**
 * True when every `filter` entry holds: the event's value at the key (a dot path such as
 * `detail.type`) equals the given value (deep equality for objects and arrays). An empty or
 * missing filter keeps every event.
 */
export function matchesFilter(
  event: unknown,
  filter: Record<string, unknown> | undefined,
): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([path, expected]) =>
    isDeepStrictEqual(valueAt(event, path), expected),
  );
}
