import { Type, type Static } from '@weft/core/typebox';

/** A checksum in a lock: `sha256:` and 64 lowercase hex digits. */
export const LOCK_CHECKSUM_PATTERN = '^sha256:[0-9a-f]{64}$';

/** Bounds of a workflow's lock (in `weft.lock` and in the deploy body). */
export const LOCK_LIMITS = {
  /** References of one kind (plugins, agents or workflows) of one workflow. */
  entries: 1000,
  /** Length of a reference as written (a map key). */
  key: 300,
  /** Length of a version. */
  version: 64,
  /** Length of `source` (a registry address or a file path). */
  source: 2048,
} as const;

/** One locked reference: the version it resolved to and the checksum of what was found. */
export const LockedReference = Type.Object(
  {
    version: Type.String({ minLength: 1, maxLength: LOCK_LIMITS.version }),
    checksum: Type.String({
      pattern: LOCK_CHECKSUM_PATTERN,
      description:
        'SHA-256 of the definition: the registry’s checksum (of the exact bytes it serves), of a local file’s bytes, or (a subworkflow) of the RFC 8785 canonical JSON of its definition',
    }),
    source: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: LOCK_LIMITS.source,
        description: 'Where it was resolved: a registry address, or a file path',
      }),
    ),
  },
  { additionalProperties: false },
);
export type LockedReference = Static<typeof LockedReference>;

const references = (description: string) =>
  Type.Optional(
    Type.Record(Type.String({ maxLength: LOCK_LIMITS.key }), LockedReference, {
      maxProperties: LOCK_LIMITS.entries,
      description,
    }),
  );

/**
 * What one workflow's lock holds (`weft.lock`, docs/workflow-language.md#lock-the-versions):
 * its own version and, by the reference as its steps write it, each plugin, agent and
 * subworkflow resolved.
 */
export const WorkflowLock = Type.Object(
  {
    version: Type.String({
      minLength: 1,
      maxLength: LOCK_LIMITS.version,
      description: 'The version of the workflow the lock was made for',
    }),
    plugins: references('By `plugin:` slug or `connector:` reference'),
    agents: references('By `agent:` reference as written (a range included)'),
    workflows: references('Subworkflows, by name, or `name@range` when the step gives a version'),
  },
  { additionalProperties: false },
);
export type WorkflowLock = Static<typeof WorkflowLock>;

/** The kinds of references a lock holds. */
export const LOCK_KINDS = ['plugins', 'agents', 'workflows'] as const;
/** One of {@link LOCK_KINDS}. */
export type LockKind = (typeof LOCK_KINDS)[number];

/** What is wrong with a lock: where (a path into it), which rule, and a sentence. */
export interface LockProblem {
  path: (string | number)[];
  constraint: string;
  message: string;
  limit?: number;
}

const CHECKSUM = new RegExp(LOCK_CHECKSUM_PATTERN);

/**
 * Checks a workflow's lock strictly (types, known keys, sizes, checksum shape): the first
 * problem, or undefined when it is sound. `extraKeys` are further keys the caller allows at the
 * top (`weft.lock` adds `file`).
 */
export function checkWorkflowLock(
  value: unknown,
  path: (string | number)[] = [],
  extraKeys: readonly string[] = [],
): LockProblem | undefined {
  if (!isMap(value)) return { path, constraint: 'type', message: 'must be a map' };
  const allowed = ['version', ...LOCK_KINDS, ...extraKeys];
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) return unknownKey([...path, key], key, allowed);
  }
  const version = text(value['version'], [...path, 'version'], LOCK_LIMITS.version, true);
  if (version) return version;
  for (const kind of LOCK_KINDS) {
    const refs = value[kind];
    if (refs === undefined) continue;
    const at = [...path, kind];
    if (!isMap(refs))
      return { path: at, constraint: 'type', message: 'must be a map of references' };
    const keys = Object.keys(refs);
    if (keys.length > LOCK_LIMITS.entries)
      return {
        path: at,
        constraint: 'max_items',
        limit: LOCK_LIMITS.entries,
        message: `has ${keys.length} entries, more than ${LOCK_LIMITS.entries}`,
      };
    for (const key of keys) {
      const problem = checkReference(refs[key], [...at, key], key);
      if (problem) return problem;
    }
  }
  return undefined;
}

function checkReference(
  value: unknown,
  path: (string | number)[],
  key: string,
): LockProblem | undefined {
  if (key.length === 0 || key.length > LOCK_LIMITS.key)
    return {
      path,
      constraint: 'key_length',
      limit: LOCK_LIMITS.key,
      message: `a reference must have 1 to ${LOCK_LIMITS.key} characters`,
    };
  if (!isMap(value))
    return { path, constraint: 'type', message: 'must be a map {version, checksum, source?}' };
  const allowed = ['version', 'checksum', 'source'];
  for (const k of Object.keys(value)) {
    if (!allowed.includes(k)) return unknownKey([...path, k], k, allowed);
  }
  const version = text(value['version'], [...path, 'version'], LOCK_LIMITS.version, true);
  if (version) return version;
  const checksum = value['checksum'];
  if (typeof checksum !== 'string' || !CHECKSUM.test(checksum))
    return {
      path: [...path, 'checksum'],
      constraint: checksum === undefined ? 'required' : 'pattern',
      message: 'must be sha256: followed by 64 lowercase hex digits',
    };
  return text(value['source'], [...path, 'source'], LOCK_LIMITS.source, false);
}

function text(
  value: unknown,
  path: (string | number)[],
  limit: number,
  required: boolean,
): LockProblem | undefined {
  if (value === undefined)
    return required ? { path, constraint: 'required', message: 'is required' } : undefined;
  if (typeof value !== 'string') return { path, constraint: 'type', message: 'must be a string' };
  if (value.length === 0 || value.length > limit)
    return {
      path,
      constraint: 'length',
      limit,
      message: `must have 1 to ${limit} characters`,
    };
  return undefined;
}

function unknownKey(path: (string | number)[], key: string, allowed: string[]): LockProblem {
  return {
    path,
    constraint: 'additionalProperties',
    message: `unknown key ${JSON.stringify(key)}; allowed: ${allowed.join(', ')}`,
  };
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A lock's path as text: `plugins["connector:acme/tools@1.0.0"].checksum`. */
export function formatLockPath(path: readonly (string | number)[]): string {
  return path
    .map((p, i) =>
      typeof p === 'number'
        ? `[${p}]`
        : /^[A-Za-z_][A-Za-z0-9_-]*$/.test(p)
          ? `${i === 0 ? '' : '.'}${p}`
          : `[${JSON.stringify(p)}]`,
    )
    .join('');
}
