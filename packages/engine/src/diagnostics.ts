/** A path into a workflow file, e.g. `['workflows', 0, 'steps', 2, 'retry', 'max_attempts']`. */
export type Path = readonly (string | number)[];

/** Something wrong (or suspicious) found while loading or validating a workflow file. */
export interface Diagnostic {
  severity: 'error' | 'warning';
  /** A short machine word: `syntax`, `unknown_key`, `type`, `required`, `reference`, ... */
  code: string;
  /** Dotted path such as `workflows[0].steps[2].retry.max_attempts` (empty for the whole file). */
  path: string;
  /** One line saying what is wrong and, where it helps, what to do. */
  message: string;
  /** What was expected, when that can be said. */
  expected?: string;
  /** What was found, when that can be said. */
  found?: string;
  /** File name as given to the loader. */
  file?: string;
  /** 1-based line and column of the offending place. */
  line?: number;
  column?: number;
}

/** Formats a path as `workflows[0].steps[2].retry` (keys that are not identifiers are quoted). */
export function formatPath(path: Path): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(segment))
      out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** `file:line:column: error: path: message` — the shape editors and terminals link. */
export function formatDiagnostic(d: Diagnostic): string {
  const where = [d.file, d.line, d.column].filter((x) => x !== undefined).join(':');
  const head = where === '' ? '' : `${where}: `;
  const at = d.path === '' ? '' : `${d.path}: `;
  return `${head}${d.severity}: ${at}${d.message}`;
}

/** Orders diagnostics by position, errors before warnings at the same place. */
export function sortDiagnostics(list: Diagnostic[]): Diagnostic[] {
  return list.sort(
    (a, b) =>
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.column ?? 0) - (b.column ?? 0) ||
      (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1),
  );
}

/** Short, bounded rendering of a found value: `"three"`, `42`, `an object`, `null`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') {
    const text = JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
    return `${text} (a string)`;
  }
  return `${String(value)} (a ${typeof value})`;
}
