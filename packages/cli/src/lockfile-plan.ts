import { LOCK_KINDS, type LockKind, type LockedReference } from '@weft/core';
import type { WorkflowDefinition } from '@weft/engine';
import type { LockEntry, Lockfile } from './lockfile.js';
import {
  resolveWorkflow,
  shown,
  type Resolution,
  type ResolveSources,
  type Shelf,
} from './lockfile-resolve.js';

/** A loaded workflow with its definition as written and its file. */
export interface LoadedWorkflow {
  workflow: WorkflowDefinition;
  raw: Record<string, unknown>;
  file: string;
}

/** A reference whose locked version or checksum is not what is found here. */
export interface LockMismatch {
  workflow: string;
  kind: 'plugin' | 'agent' | 'workflow';
  reference: string;
  locked_version: string;
  locked_checksum: string;
  found_version: string;
  found_checksum: string;
  found_in: string;
}

const SINGULAR: Record<LockKind, LockMismatch['kind']> = {
  plugins: 'plugin',
  agents: 'agent',
  workflows: 'workflow',
};

/** One line of a mismatch: what, the locked and the found version and checksum. */
export function describeMismatch(m: LockMismatch): string {
  return (
    `${m.kind} ${m.reference} of workflow ${m.workflow}: locked ${m.locked_version} ${m.locked_checksum}, ` +
    `found ${m.found_version} ${m.found_checksum} (${m.found_in})`
  );
}

/** The names `--update <slug>` selects a reference by, from the reference as written. */
export function refNames(kind: LockKind, ref: string): string[] {
  if (kind === 'plugins') {
    const connector = /^connector:([^/]+)\/([^@]+)@/.exec(ref);
    return connector ? [ref, connector[2]!] : [ref];
  }
  if (kind === 'agents') {
    const agent = /^agent:([^/]+)\/([^@]+)@/.exec(ref);
    return agent ? [ref, `${agent[1]}/${agent[2]}`, `${agent[1]}-${agent[2]}`] : [ref];
  }
  const at = ref.indexOf('@');
  return [ref, at < 0 ? ref : ref.slice(0, at)];
}

function selects(update: readonly string[], kind: LockKind, ref: string, found?: Resolution) {
  const names = new Set([...refNames(kind, ref), ...(found?.names ?? [])]);
  return update.some((u) => names.has(u));
}

function resolveWith(
  target: LoadedWorkflow,
  all: readonly LoadedWorkflow[],
  shelf: Shelf,
  prefer: ResolveSources['prefer'],
) {
  return resolveWorkflow(target.workflow, { workflows: all, ...(prefer ? { prefer } : {}) }, shelf);
}

/** What `weft workflow lock` would write, and what it found changed, refused or unresolved. */
export interface LockPlan {
  lock: Lockfile;
  /** Readable lines: what moved. */
  changes: string[];
  /** Same version, another checksum, not named by `--update`: refused. */
  refused: LockMismatch[];
  /** References nothing here resolves (handlers of `--require`, a server's plugins). */
  unresolved: string[];
  /** `--update` names that select nothing. */
  unmatched: string[];
}

/**
 * Plans the lock of `targets` over `existing`: each reference resolves as a run resolves it,
 * preferring the locked version when it is there. Without `update`, every reference takes what
 * is found, except a checksum that changed at the same version (refused: the file was changed
 * in place); with `update`, only the references it names move (and new ones are added), the
 * others keep their locked entry. Workflows of `existing` not among `targets` are kept.
 */
export function planLock(
  existing: Lockfile | undefined,
  targets: readonly LoadedWorkflow[],
  all: readonly LoadedWorkflow[],
  shelf: Shelf,
  update: readonly string[],
): LockPlan {
  const plan: LockPlan = {
    lock: { workflows: { ...existing?.workflows } },
    changes: [],
    refused: [],
    unresolved: [],
    unmatched: [],
  };
  const used = new Set<string>();
  for (const target of targets) {
    const { workflow } = target;
    const old = existing?.workflows[workflow.name];
    const prefer = (kind: LockKind, ref: string) =>
      update.length > 0 && selects(update, kind, ref) ? undefined : old?.[kind]?.[ref]?.version;
    const found = resolveWith(target, all, shelf, prefer);
    const entry: LockEntry = { file: shown(target.file, shelf.base), version: workflow.version };
    if (!old) plan.changes.push(`${workflow.name} ${workflow.version}: locked`);
    else if (old.version !== workflow.version)
      plan.changes.push(`${workflow.name}: ${old.version} -> ${workflow.version}`);
    for (const kind of LOCK_KINDS) {
      const refs: Record<string, LockedReference> = {};
      for (const [ref, res] of found[kind]) {
        const locked = old?.[kind]?.[ref];
        const named = update.length > 0 && selects(update, kind, ref, res);
        if (named) for (const u of update) if (selects([u], kind, ref, res)) used.add(u);
        if (!res) {
          plan.unresolved.push(`${SINGULAR[kind]} ${ref} of workflow ${workflow.name}`);
          if (locked) refs[ref] = locked;
          continue;
        }
        const fresh: LockedReference = {
          version: res.version,
          checksum: res.checksum,
          source: res.source,
        };
        if (locked && update.length > 0 && !named) {
          refs[ref] = locked;
          continue;
        }
        if (
          locked &&
          !named &&
          locked.version === res.version &&
          locked.checksum !== res.checksum
        ) {
          plan.refused.push(mismatch(workflow.name, kind, ref, locked, res));
          refs[ref] = locked;
          continue;
        }
        refs[ref] = fresh;
        if (old && !locked)
          plan.changes.push(`${workflow.name}: ${SINGULAR[kind]} ${ref} ${res.version} added`);
        else if (locked && (locked.version !== res.version || locked.checksum !== res.checksum))
          plan.changes.push(
            `${workflow.name}: ${SINGULAR[kind]} ${ref} ${locked.version} -> ${res.version}` +
              (locked.version === res.version ? ` (checksum ${res.checksum})` : ''),
          );
      }
      for (const ref of Object.keys(old?.[kind] ?? {})) {
        if (!found[kind].has(ref))
          plan.changes.push(`${workflow.name}: ${SINGULAR[kind]} ${ref} removed`);
      }
      if (Object.keys(refs).length > 0) entry[kind] = refs;
    }
    plan.lock.workflows[workflow.name] = entry;
  }
  plan.unmatched = update.filter((u) => !used.has(u));
  return plan;
}

function mismatch(
  workflow: string,
  kind: LockKind,
  ref: string,
  locked: LockedReference,
  res: Resolution,
): LockMismatch {
  return {
    workflow,
    kind: SINGULAR[kind],
    reference: ref,
    locked_version: locked.version,
    locked_checksum: locked.checksum,
    found_version: res.version,
    found_checksum: res.checksum,
    found_in: res.source,
  };
}

/** How a run, test or deploy stands against the lock. */
export interface LockCheck {
  /** Locked references found at another version or checksum: refused. */
  mismatches: LockMismatch[];
  /** What locking again would change (refused with `--frozen-lockfile`, else notes). */
  changes: string[];
  /** Apply the locked versions: pins ranges whose default pick is not the locked version. */
  pin: () => void;
}

/**
 * Checks `targets` against `lock`: every reference found here must be at its locked version
 * and checksum (the locked version is preferred where several are there); what is not locked
 * yet, or no longer used, is a change.
 */
export function checkLock(
  lock: Lockfile,
  targets: readonly LoadedWorkflow[],
  all: readonly LoadedWorkflow[],
  shelf: Shelf,
): LockCheck {
  const check: LockCheck = { mismatches: [], changes: [], pin: () => undefined };
  const pins: (() => void)[] = [];
  for (const target of targets) {
    const { workflow } = target;
    const entry = lock.workflows[workflow.name];
    if (!entry) {
      check.changes.push(`workflow ${workflow.name} is not in the lock`);
      continue;
    }
    if (entry.version !== workflow.version)
      check.changes.push(
        `workflow ${workflow.name} is ${workflow.version}, locked at ${entry.version}`,
      );
    const found = resolveWith(target, all, shelf, (kind, ref) => entry[kind]?.[ref]?.version);
    const plain = resolveWith(target, all, shelf, undefined);
    for (const kind of LOCK_KINDS) {
      for (const [ref, res] of found[kind]) {
        const locked = entry[kind]?.[ref];
        if (!res) continue;
        if (!locked) {
          check.changes.push(`${SINGULAR[kind]} ${ref} of workflow ${workflow.name} is not locked`);
          continue;
        }
        if (locked.version !== res.version || locked.checksum !== res.checksum) {
          check.mismatches.push(mismatch(workflow.name, kind, ref, locked, res));
          continue;
        }
        if (kind !== 'plugins' && plain[kind].get(ref)?.version !== res.version)
          pins.push(() => pinSteps(kind, res));
      }
      for (const ref of Object.keys(entry[kind] ?? {})) {
        if (!found[kind].has(ref))
          check.changes.push(
            `${SINGULAR[kind]} ${ref} of workflow ${workflow.name} is locked but no longer used`,
          );
      }
    }
  }
  check.pin = () => pins.forEach((p) => p());
  return check;
}

/** Rewrites the steps of a ranged agent or subworkflow reference to the locked version. */
function pinSteps(kind: LockKind, res: Resolution): void {
  for (const { step } of res.steps) {
    if (kind === 'agents' && typeof step['agent'] === 'string')
      step['agent'] = `${step['agent'].slice(0, step['agent'].lastIndexOf('@'))}@${res.version}`;
    if (kind === 'workflows') step['version'] = res.version;
  }
}
