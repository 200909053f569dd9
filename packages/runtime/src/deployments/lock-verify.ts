import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import satisfies from 'semver/functions/satisfies.js';
import {
  AGENT_REF_PATTERN,
  ConflictError,
  parseConnectorRef,
  ValidationError,
  type DeploymentRecord,
  type LockKind,
  type LockedReference,
  type PluginState,
  type WorkflowLock,
} from '@weft/core';
import type { WorkflowDefinition } from '@weft/engine';
import maxSatisfying from 'semver/ranges/max-satisfying.js';

const AGENT_REF = new RegExp(AGENT_REF_PATTERN);

/** What the server reads to check a lock: its registry, and its deployed workflows. */
export interface LockSources {
  /** A registry entry (plugin or published agent) with every version; undefined when unknown. */
  registryEntry?: ((slug: string) => Promise<PluginState | undefined>) | undefined;
  /** The active deployment of a workflow name in the deploying workspace. */
  deployed: (name: string) => Promise<DeploymentRecord | undefined>;
}

/** One reference whose locked version or checksum is not what this server resolves. */
export interface LockMismatch {
  kind: 'plugin' | 'agent' | 'workflow';
  reference: string;
  locked_version: string;
  locked_checksum: string;
  found_version: string | null;
  found_checksum: string | null;
  /** `mismatch`, or why nothing was found (`not_in_registry`, `not_deployed`, `no_version`). */
  reason: string;
}

/**
 * Checks a deployment's lock against what this server resolves, failing closed: the lock must
 * be of the workflow's version (else `VALIDATION`); every locked plugin must resolve in this
 * server's registry (a `connector:` reference to its version, a bare slug to the latest) to the
 * locked version and checksum; a locked agent the registry publishes must resolve (its range) to
 * the locked version and checksum (one it does not publish may come from the server's agents
 * directory, which keeps no checksums: not checked); a locked subworkflow must be deployed, at
 * the locked version, with the locked checksum (SHA-256 of the RFC 8785 JSON of its definition).
 * Any difference is `CONFLICT` (409) listing each in `details.mismatches`.
 */
export async function verifyLock(
  workflow: WorkflowDefinition,
  lock: WorkflowLock,
  sources: LockSources,
): Promise<void> {
  if (lock.version !== workflow.version) {
    throw new ValidationError(
      `the lock is of version ${lock.version} of "${workflow.name}", the definition is ${workflow.version}: lock it again (weft workflow lock)`,
      { field: 'lock.version', constraint: 'matches_definition', workflow: workflow.name },
    );
  }
  const mismatches: LockMismatch[] = [];
  const check = async (
    kind: LockMismatch['kind'],
    reference: string,
    locked: LockedReference,
    found: Promise<{ version: string; checksum: string } | string | undefined>,
  ) => {
    const got = await found;
    if (got === undefined) return;
    const base = {
      kind,
      reference,
      locked_version: locked.version,
      locked_checksum: locked.checksum,
    };
    if (typeof got === 'string') {
      mismatches.push({ ...base, found_version: null, found_checksum: null, reason: got });
    } else if (got.version !== locked.version || got.checksum !== locked.checksum) {
      mismatches.push({
        ...base,
        found_version: got.version,
        found_checksum: got.checksum,
        reason: 'mismatch',
      });
    }
  };
  for (const [ref, locked] of entries(lock, 'plugins'))
    await check('plugin', ref, locked, plugin(ref, sources));
  for (const [ref, locked] of entries(lock, 'agents'))
    await check('agent', ref, locked, agent(ref, sources));
  for (const [ref, locked] of entries(lock, 'workflows'))
    await check('workflow', ref, locked, subworkflow(ref, sources));
  if (mismatches.length === 0) return;
  throw new ConflictError(
    `not deployed: the lock of "${workflow.name}" does not match this server: ${mismatches.map(describe).join('; ')}. ` +
      'Publish or deploy what the lock names, or lock again (weft workflow lock --update <slug>) and redeploy',
    { field: 'lock', constraint: 'lock_mismatch', workflow: workflow.name, mismatches },
  );
}

function entries(lock: WorkflowLock, kind: LockKind): [string, LockedReference][] {
  return Object.entries(lock[kind] ?? {});
}

function describe(m: LockMismatch): string {
  const found =
    m.found_version === null
      ? m.reason.replaceAll('_', ' ')
      : `found ${m.found_version} (${m.found_checksum})`;
  return `${m.kind} ${m.reference}: locked ${m.locked_version} (${m.locked_checksum}), ${found}`;
}

async function plugin(
  ref: string,
  sources: LockSources,
): Promise<{ version: string; checksum: string } | string> {
  const pinned = ref.startsWith('connector:') ? parseConnectorRef(ref) : undefined;
  const slug = pinned?.name ?? ref;
  const state = await sources.registryEntry?.(slug);
  if (!state || state.plugin.kind !== 'plugin') return 'not_in_registry';
  const version = pinned ? pinned.version : state.plugin.listing?.latest_version;
  const found = state.versions.find((v) => v.version === version && v.status !== 'removed');
  return found ? { version: found.version, checksum: found.checksum } : 'no_version';
}

async function agent(
  ref: string,
  sources: LockSources,
): Promise<{ version: string; checksum: string } | string | undefined> {
  const match = AGENT_REF.exec(ref);
  if (!match) return 'not_an_agent_reference';
  const state = await sources.registryEntry?.(`${match[1]}-${match[2]}`);
  // Not published: it may be in the server's agents directory, which keeps no checksums.
  if (!state || state.plugin.kind !== 'agent') return undefined;
  const live = state.versions.filter((v) => v.status !== 'removed');
  const range = match[3]!;
  const best = live.some((v) => v.version === range)
    ? range
    : maxSatisfying(
        live.map((v) => v.version),
        range,
      );
  const found = live.find((v) => v.version === best);
  return found ? { version: found.version, checksum: found.checksum } : 'no_version';
}

async function subworkflow(
  ref: string,
  sources: LockSources,
): Promise<{ version: string; checksum: string } | string> {
  const at = ref.indexOf('@');
  const name = at < 0 ? ref : ref.slice(0, at);
  const range = at < 0 ? undefined : ref.slice(at + 1);
  const record = await sources.deployed(name);
  if (!record) return 'not_deployed';
  if (range !== undefined && !satisfies(record.version, range)) return 'no_version';
  return { version: record.version, checksum: definitionChecksum(record.definition) };
}

/** `sha256:<hex>` of the RFC 8785 canonical JSON of a workflow definition (as written). */
export function definitionChecksum(definition: Record<string, unknown>): string {
  const text = canonicalize(definition) ?? '';
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}
