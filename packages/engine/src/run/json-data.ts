/** Deepest nesting of maps and lists an action's output may have. */
export const MAX_OUTPUT_DEPTH = 256;

/** Where an output stops being JSON data, and why. */
export interface JsonDataProblem {
  /** Path from the output, e.g. `output.items[2].owner`. */
  path: string;
  /** What is there, e.g. `a reference back to output.items[2]` or `a BigInt`. */
  found: string;
}

const EXIT = Symbol('exit');

/**
 * The first place where `value` is not JSON data, or undefined when it all is: null, booleans,
 * numbers, strings, arrays, plain objects, and `Date` (written as its ISO text), with
 * `undefined` allowed (dropped as JSON drops it). Refused: cycles, BigInt, functions, symbols,
 * other class instances (Map, Set, Buffer, ...) and nesting deeper than `maxDepth`. A value
 * shared by two branches is fine. Walked without recursion, so a hostile value cannot overflow
 * the stack; every later walk (masking secrets, events, storage) may recurse safely.
 */
export function jsonDataProblem(
  value: unknown,
  maxDepth = MAX_OUTPUT_DEPTH,
): JsonDataProblem | undefined {
  const root = leafProblem(value);
  if (root === undefined) return undefined;
  if (root !== OBJECT) return at('output', root);
  return flatData(value as object, maxDepth) ? undefined : walk(value as object, maxDepth);
}

/**
 * Whether `value` is a plain object or an array whose every value is a leaf that is JSON data:
 * most outputs. It then needs none of the walk's bookkeeping (a map of open objects, a stack),
 * which cost ~4% of an engine step; anything else goes to the walk, which says what is wrong.
 */
function flatData(value: object, maxDepth: number): boolean {
  if (maxDepth < 1) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++)
      if (leafProblem((value as unknown[])[i]) !== undefined) return false;
    return true;
  }
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return false;
  for (const key of Object.keys(value))
    if (leafProblem((value as Record<string, unknown>)[key]) !== undefined) return false;
  return true;
}

/** Marks a value that is an object to walk. */
const OBJECT = 0;

/** What is wrong with a value that is not an object: undefined when nothing, OBJECT to walk it. */
function leafProblem(value: unknown): string | typeof OBJECT | undefined {
  switch (typeof value) {
    case 'undefined':
    case 'boolean':
    case 'number':
    case 'string':
      return undefined;
    case 'bigint':
      return 'a BigInt (send it as a string or a number)';
    case 'function':
      return 'a function';
    case 'symbol':
      return 'a symbol';
    default:
      return value === null || value instanceof Date ? undefined : OBJECT;
  }
}

const at = (path: string, found: string): JsonDataProblem => ({ path, found });

function walk(root: object, maxDepth: number): JsonDataProblem | undefined {
  // Objects on the path from the root to the one being walked: a reference to one is a cycle.
  const open = new Map<object, string>();
  const stack: [object | typeof EXIT, string, number][] = [[root, 'output', 0]];
  while (stack.length > 0) {
    const [object, path, depth] = stack.pop()!;
    if (object === EXIT) {
      open.delete(stack.pop()![0] as object);
      continue;
    }
    const cycle = open.get(object);
    if (cycle !== undefined) return at(path, `a reference back to ${cycle} (a cycle)`);
    const array = Array.isArray(object);
    const prototype = Object.getPrototypeOf(object) as unknown;
    if (!array && prototype !== Object.prototype && prototype !== null) {
      const name = (object.constructor as { name?: unknown } | undefined)?.name;
      const what = typeof name === 'string' && name ? name : 'a class';
      return at(path, `an instance of ${what} (return plain objects and arrays)`);
    }
    if (depth >= maxDepth) return at(path, `nesting deeper than the limit of ${maxDepth} levels`);
    open.set(object, path);
    stack.push([object, path, depth], [EXIT, path, depth]);
    const keys = array ? undefined : Object.keys(object);
    const length = keys ? keys.length : (object as unknown[]).length;
    for (let i = length - 1; i >= 0; i--) {
      const key = keys ? keys[i]! : i;
      const child = (object as Record<string | number, unknown>)[key];
      const problem = leafProblem(child);
      if (problem === undefined) continue;
      const childPath = keys ? `${path}.${key}` : `${path}[${key}]`;
      if (problem !== OBJECT) return at(childPath, problem);
      stack.push([child as object, childPath, depth + 1]);
    }
  }
  return undefined;
}
