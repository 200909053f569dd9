import { dirname, resolve } from 'node:path';
import { Option } from 'commander';
import { ValidationError, type WorkflowLock } from '@weft/core';
import { calledWorkflows, pickWorkflow, type WorkflowDefinition } from '@weft/engine';
import { EXIT } from './exit-codes.js';
import type { Io } from './io.js';
import { lockPath, readLockfileIfAny, wireLock } from './lockfile.js';
import { checkLock, describeMismatch } from './lockfile-plan.js';
import { rawWorkflows, readShelf } from './lockfile-resolve.js';
import type { ProjectConfig } from './project-config.js';

/** `--frozen-lockfile` of `weft workflow run`, `test` and `deploy`. */
export const frozenLockfileOption = () =>
  new Option(
    '--frozen-lockfile',
    'refuse to go on when weft.lock is missing or would change (a workflow or reference not locked, or no longer used): for CI',
  );

/** What a command enforces the lock on. */
export interface EnforceLock {
  /** The workflow file, as resolved. */
  file: string;
  config: ProjectConfig | undefined;
  /** Every workflow of the file. */
  workflows: readonly WorkflowDefinition[];
  /** The workflows the command runs, tests or deploys (the ones they call are added). */
  selected: readonly WorkflowDefinition[];
  pluginsDir: string;
  agentsDir: string;
  frozen: boolean;
  maxFileSize: number;
}

/** The locks of the workflows concerned, by name (empty without a lock file). */
export type EnforcedLocks = Map<string, WorkflowLock>;

/**
 * Holds a command to `weft.lock` ({@link lockPath}) when there is one: a plugin, agent or
 * subworkflow found at another version or checksum than locked refuses it (`VALIDATION`, naming
 * each with the locked and the found checksum); with `frozen`, so does a missing lock file and
 * anything locking again would change. Otherwise a change is a note on stderr. On success the
 * locked versions are applied (ranged agent and subworkflow references pinned to them) and the
 * locks of the workflows concerned are given back (deploy sends them).
 */
export async function enforceLock(io: Io, args: EnforceLock): Promise<EnforcedLocks> {
  const path = lockPath(args.file, args.config);
  const lock = await readLockfileIfAny(path);
  if (!lock) {
    if (args.frozen)
      throw new ValidationError(
        `--frozen-lockfile: there is no ${path}: write it with weft workflow lock and commit it`,
        { field: 'weft.lock', constraint: 'frozen', file: path },
      );
    return new Map();
  }
  const concerned = withCallees(args.selected, args.workflows);
  const all = await rawWorkflows(args.file, args.workflows, args.maxFileSize);
  const targets = all.filter((w) => concerned.has(w.workflow));
  const shelf = await readShelf(args.pluginsDir, args.agentsDir, dirname(resolve(path)));
  const check = checkLock(lock, targets, all, shelf);
  if (check.mismatches.length > 0) {
    throw new ValidationError(
      `${path}: ${check.mismatches.length === 1 ? 'a checksum or version differs' : `${check.mismatches.length} checksums or versions differ`} from the lock:\n` +
        check.mismatches.map((m) => `  ${describeMismatch(m)}\n`).join('') +
        'Restore what was locked, or accept the change with weft workflow lock --update <slug> (and review it)',
      { field: 'weft.lock', constraint: 'checksum', file: path, mismatches: check.mismatches },
    );
  }
  if (check.changes.length > 0) {
    if (args.frozen)
      throw new ValidationError(
        `--frozen-lockfile: ${path} would change:\n` +
          check.changes.map((c) => `  ${c}\n`).join('') +
          'Run weft workflow lock, review and commit weft.lock',
        { field: 'weft.lock', constraint: 'frozen', file: path, changes: check.changes },
      );
    for (const change of check.changes) io.err(`note: ${path}: ${change} (weft workflow lock)\n`);
  }
  check.pin();
  const locks: EnforcedLocks = new Map();
  for (const { workflow } of targets) {
    const entry = lock.workflows[workflow.name];
    if (entry) locks.set(workflow.name, wireLock(entry));
  }
  return locks;
}

/** `selected` and every workflow of `workflows` they call, transitively. */
function withCallees(
  selected: readonly WorkflowDefinition[],
  workflows: readonly WorkflowDefinition[],
): Set<WorkflowDefinition> {
  const out = new Set(selected);
  for (const workflow of selected) {
    for (const call of calledWorkflows(workflow, (name, range) =>
      pickWorkflow(workflows, name, range),
    ))
      if (call.called) out.add(call.called);
  }
  return out;
}

/** The flags of a command that holds to the lock. */
export interface LockFlags {
  plugins?: string;
  agents?: string;
  frozenLockfile?: boolean;
  maxFileSize: number;
}

/**
 * {@link enforceLock} for a command: the locks of the workflows concerned, or the exit code of
 * a refusal (2, as for an invalid file: the message says what differs) after printing it.
 */
export async function holdToLock(
  io: Io,
  file: string,
  config: ProjectConfig | undefined,
  workflows: readonly WorkflowDefinition[],
  selected: readonly WorkflowDefinition[],
  flags: LockFlags,
): Promise<EnforcedLocks | number> {
  try {
    return await enforceLock(io, {
      file,
      config,
      workflows,
      selected,
      pluginsDir: flags.plugins ?? config?.plugins ?? 'plugins',
      agentsDir: flags.agents ?? config?.agents ?? 'agents',
      frozen: flags.frozenLockfile === true,
      maxFileSize: flags.maxFileSize,
    });
  } catch (error) {
    io.err(`weft: ${(error as Error).message}\n`);
    return error instanceof ValidationError ? EXIT.invalid : EXIT.failure;
  }
}
