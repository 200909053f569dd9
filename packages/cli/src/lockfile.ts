import { existsSync } from 'node:fs';
import { readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  checkWorkflowLock,
  LOCK_KINDS,
  ValidationError,
  type LockedReference,
  type WorkflowLock,
} from '@weft/core';
import { compileLoadOptions, formatDiagnostic, parseWorkflowSource } from '@weft/engine';
import { stringify } from 'yaml';
import type { ProjectConfig } from './project-config.js';

/** The name of the lock file. */
export const LOCK_FILE = 'weft.lock';

/** The version of the lock file's format (`lockfile_version`). */
export const LOCKFILE_VERSION = 1;

/** Bounds of a lock file, beside those of each workflow's entry (`LOCK_LIMITS`). */
export const LOCKFILE_LIMITS = { bytes: 4 * 1024 * 1024, workflows: 10_000 } as const;

/** A workflow's entry in `weft.lock`: its lock, and the file it was found in. */
export type LockEntry = WorkflowLock & { file?: string };

/** What `weft.lock` holds: each locked workflow by name. */
export interface Lockfile {
  workflows: Record<string, LockEntry>;
}

/**
 * Where the lock of a project is: beside `weft.config.yaml` when there is one (one lock for
 * every workflow of the project), else beside the workflow file.
 */
export function lockPath(workflowFile: string, config: ProjectConfig | undefined): string {
  return join(config ? dirname(config.file) : dirname(workflowFile), LOCK_FILE);
}

/** Reads `weft.lock` when it exists (undefined when not); a bad one is {@link readLockfile}'s error. */
export async function readLockfileIfAny(file: string): Promise<Lockfile | undefined> {
  return existsSync(file) ? readLockfile(file) : undefined;
}

/**
 * Reads and checks a lock file as the workflow loader reads workflow files (size, UTF-8, syntax,
 * duplicate keys, aliases, depth, custom tags, `__proto__`), then its shape strictly: unknown
 * keys, wrong types, bad checksums and sizes are `VALIDATION` naming `file:line:col` and the rule.
 */
export async function readLockfile(file: string): Promise<Lockfile> {
  let bytes: Uint8Array;
  try {
    const info = await stat(file);
    if (info.size > LOCKFILE_LIMITS.bytes) {
      throw problem(
        `${file}: error: file is ${info.size} bytes, over the limit of ${LOCKFILE_LIMITS.bytes} bytes`,
        'too_large',
        file,
      );
    }
    bytes = await readFile(file);
  } catch (error) {
    if (error instanceof ValidationError) throw error;
    throw problem(`${file}: error: cannot read it (${(error as Error).message})`, 'read', file);
  }
  const { value, reporter } = parseWorkflowSource(
    bytes,
    compileLoadOptions({ file, maxFileSize: LOCKFILE_LIMITS.bytes }),
  );
  const first = reporter.diagnostics.find((d) => d.severity === 'error');
  if (first) throw problem(formatDiagnostic(first), first.code, file);
  const report = (path: (string | number)[], constraint: string, message: string) => {
    reporter.error(path, constraint, message, { key: constraint === 'additionalProperties' });
    const d = reporter.diagnostics.at(-1)!;
    return problem(formatDiagnostic(d), constraint, file);
  };
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw report([], 'type', `${file} must be a map with lockfile_version and workflows`);
  const top = value as Record<string, unknown>;
  for (const key of Object.keys(top)) {
    if (key !== 'lockfile_version' && key !== 'workflows')
      throw report(
        [key],
        'additionalProperties',
        `unknown key ${JSON.stringify(key)}; allowed: lockfile_version, workflows`,
      );
  }
  if (top['lockfile_version'] !== LOCKFILE_VERSION)
    throw report(
      ['lockfile_version'],
      top['lockfile_version'] === undefined ? 'required' : 'const',
      `lockfile_version must be ${LOCKFILE_VERSION} (this weft reads version ${LOCKFILE_VERSION} lock files)`,
    );
  const workflows = top['workflows'] ?? {};
  if (workflows === null || typeof workflows !== 'object' || Array.isArray(workflows))
    throw report(['workflows'], 'type', 'workflows must be a map of workflow name to its lock');
  const names = Object.keys(workflows);
  if (names.length > LOCKFILE_LIMITS.workflows)
    throw report(
      ['workflows'],
      'max_items',
      `has ${names.length} workflows, more than ${LOCKFILE_LIMITS.workflows}`,
    );
  for (const name of names) {
    if (name.length === 0 || name.length > 128)
      throw report(['workflows', name], 'key_length', 'a workflow name has 1 to 128 characters');
    const found = checkWorkflowLock((workflows as Record<string, unknown>)[name], [], ['file']);
    const entry = (workflows as Record<string, Record<string, unknown>>)[name]!;
    const bad =
      found ??
      (entry['file'] !== undefined && (typeof entry['file'] !== 'string' || entry['file'] === '')
        ? { path: ['file'], constraint: 'type', message: 'must be a file path (a string)' }
        : undefined);
    if (bad) throw report(['workflows', name, ...bad.path], bad.constraint, bad.message);
  }
  return { workflows: workflows as Record<string, LockEntry> };
}

function problem(message: string, constraint: string, file: string): ValidationError {
  return new ValidationError(`invalid lock file ${message}`, {
    field: 'weft.lock',
    constraint,
    file,
  });
}

/** The header comment of every lock file. */
const HEADER = [
  'weft.lock: written by `weft workflow lock`; review its changes like code, do not edit it.',
  'For each workflow: the version of every plugin, agent and subworkflow it references, and the',
  'SHA-256 checksum of what was found (the registry’s, or the local file’s bytes). `weft workflow',
  'run`, `test` and `deploy` refuse a checksum that differs; `--frozen-lockfile` refuses any change.',
  'Move one reference with `weft workflow lock --update <slug>`.',
];

/** The text of a lock file: a header comment, then every map sorted by key (stable, diffable). */
export function renderLockfile(lock: Lockfile): string {
  const workflows: Record<string, unknown> = {};
  for (const name of Object.keys(lock.workflows).sort()) {
    const entry = lock.workflows[name]!;
    const out: Record<string, unknown> = {};
    if (entry.file !== undefined) out['file'] = entry.file;
    out['version'] = entry.version;
    for (const kind of LOCK_KINDS) {
      const refs = entry[kind];
      if (refs === undefined || Object.keys(refs).length === 0) continue;
      out[kind] = Object.fromEntries(
        Object.keys(refs)
          .sort()
          .map((ref) => [ref, reference(refs[ref]!)]),
      );
    }
    workflows[name] = out;
  }
  const body = stringify(
    { lockfile_version: LOCKFILE_VERSION, workflows },
    { lineWidth: 0, aliasDuplicateObjects: false },
  );
  return `${HEADER.map((line) => `# ${line}`).join('\n')}\n${body}`;
}

function reference(ref: LockedReference): LockedReference {
  return {
    version: ref.version,
    checksum: ref.checksum,
    ...(ref.source !== undefined ? { source: ref.source } : {}),
  };
}

/** Writes the lock file atomically (a temporary file renamed over it). */
export async function writeLockfile(file: string, lock: Lockfile): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, renderLockfile(lock), { flag: 'w' });
  await rename(temporary, file);
}

/** The entry of a workflow as sent with a deployment: its lock without the file name. */
export function wireLock(entry: LockEntry): WorkflowLock {
  const { file: _file, ...lock } = entry;
  return lock;
}
