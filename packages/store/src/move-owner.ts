import type { Kysely, Transaction } from 'kysely';
import { ConflictError, isOwnerName, ValidationError } from '@weft/core';
import type { Database } from './database.js';

/** What {@link moveOwner} re-owned, table by table. */
export interface OwnerMove {
  from: string;
  to: string;
  moved: {
    executions: number;
    usage_days: number;
    plugins: number;
    api_keys: number;
    signing_keys: number;
    deployment_revisions: number;
    audit_entries: number;
  };
}

/**
 * Moves everything of owner `from` to owner `to` in one transaction: executions and their
 * usage, plugins, API keys, signing keys, deployments (every revision's `deployed_by` and its
 * deployer's owner; the deployer's person and credential stay) and the `owner` column of audit
 * entries (outside their hash: the chain stays whole). For carrying data made under the old
 * per-user owners of identity-provider users (`oidc:<sub>`) into their workspace
 * (docs/authorization.md#workspaces). `to` must be an owner name; a signing key both owners
 * hold refuses the whole move (`CONFLICT` listing them) and nothing changes. Moving again finds
 * nothing left to move (all counts 0).
 */
export async function moveOwner(
  db: Kysely<Database>,
  from: string,
  to: string,
): Promise<OwnerMove> {
  if (from.trim() === '' || from.length > 300 || /\p{Cc}/u.test(from)) {
    throw new ValidationError('--from must be the owner to move, 1 to 300 printable characters', {
      field: 'from',
      constraint: 'format',
    });
  }
  if (!isOwnerName(to)) {
    throw new ValidationError(
      `--to "${to}" must be an owner name: a letter or digit, then letters, digits and _ . - (at most 128 characters)`,
      { field: 'to', constraint: 'pattern' },
    );
  }
  if (from === to) {
    throw new ValidationError('--from and --to are the same owner: nothing to move', {
      field: 'to',
      constraint: 'different',
    });
  }
  return db.transaction().execute(async (trx) => {
    await refuseConflicts(trx, from, to);
    const update = async (
      table: 'executions' | 'plugins' | 'api_keys' | 'signing_keys' | 'audit_entries',
    ) =>
      Number(
        (
          await trx
            .updateTable(table)
            .set({ owner: to })
            .where('owner', '=', from)
            .executeTakeFirst()
        ).numUpdatedRows,
      );
    return {
      from,
      to,
      moved: {
        executions: await update('executions'),
        usage_days: await moveUsage(trx, from, to),
        plugins: await update('plugins'),
        api_keys: await update('api_keys'),
        signing_keys: await update('signing_keys'),
        deployment_revisions: await moveDeployments(trx, from, to),
        audit_entries: await update('audit_entries'),
      },
    };
  });
}

/**
 * Re-owns the usage of `from`; counts the days of keys moved, not their rows (a key's day may be
 * spread over a few shards, see `usage-shards-migration.ts`).
 */
async function moveUsage(trx: Transaction<Database>, from: string, to: string): Promise<number> {
  const { days } = await trx
    .selectFrom((eb) =>
      eb
        .selectFrom('usage_days')
        .select(['key_id', 'date'])
        .distinct()
        .where('owner', '=', from)
        .as('moving'),
    )
    .select((eb) => eb.fn.countAll<number | string>().as('days'))
    .executeTakeFirstOrThrow();
  await trx.updateTable('usage_days').set({ owner: to }).where('owner', '=', from).execute();
  return Number(days);
}

/**
 * What `to` already has that `from` would bring again. Plugin slugs are unique across the whole
 * server; signing keys (one row per owner and fingerprint) and deployment names (unique per
 * owner) can meet.
 */
async function refuseConflicts(
  trx: Transaction<Database>,
  from: string,
  to: string,
): Promise<void> {
  const keys = await trx
    .selectFrom('signing_keys as moving')
    .innerJoin('signing_keys as staying', 'staying.fingerprint', 'moving.fingerprint')
    .select('moving.fingerprint')
    .where('moving.owner', '=', from)
    .where('staying.owner', '=', to)
    .orderBy('moving.fingerprint')
    .execute();
  const names = await trx
    .selectFrom('deployment_revisions as moving')
    .innerJoin('deployment_revisions as staying', 'staying.name', 'moving.name')
    .select('moving.name')
    .distinct()
    .where('moving.owner', '=', from)
    .where('staying.owner', '=', to)
    .orderBy('moving.name')
    .execute();
  if (names.length > 0) {
    const workflows = names.map((row) => row.name);
    throw new ConflictError(
      `owner ${to} already has deployments named ${workflows.join(', ')} that ${from} has too: delete or rename them in one of the owners first; nothing was moved`,
      { reason: 'owner_conflict', workflows },
    );
  }
  if (keys.length === 0) return;
  const fingerprints = keys.map((key) => key.fingerprint);
  throw new ConflictError(
    `owner ${to} already has the signing keys ${fingerprints.join(', ')} that ${from} holds: remove them from one of the owners first; nothing was moved`,
    { reason: 'owner_conflict', signing_keys: fingerprints },
  );
}

/**
 * Re-owns every revision of `from` (its `owner`, `deployed_by` and the deployer snapshot's owner),
 * the active pointers and plugin references of its deployments.
 */
async function moveDeployments(
  trx: Transaction<Database>,
  from: string,
  to: string,
): Promise<number> {
  const revisions = await trx
    .selectFrom('deployment_revisions')
    .select(['owner', 'name', 'revision', 'deployed_by', 'deployer'])
    .where((eb) =>
      eb.or([eb('owner', '=', from), eb('deployed_by', '=', from), eb('deployer', 'is not', null)]),
    )
    .execute();
  await trx.updateTable('deployments').set({ owner: to }).where('owner', '=', from).execute();
  await trx
    .updateTable('deployment_plugins')
    .set({ owner: to })
    .where('owner', '=', from)
    .execute();
  let moved = 0;
  for (const row of revisions) {
    const deployer =
      row.deployer === null ? null : (JSON.parse(row.deployer) as { owner?: string });
    const ownedByDeployer = deployer?.owner === from;
    if (row.owner !== from && row.deployed_by !== from && !ownedByDeployer) continue;
    await trx
      .updateTable('deployment_revisions')
      .set({
        ...(row.owner === from ? { owner: to } : {}),
        ...(row.deployed_by === from ? { deployed_by: to } : {}),
        ...(ownedByDeployer ? { deployer: JSON.stringify({ ...deployer, owner: to }) } : {}),
      })
      .where('owner', '=', row.owner)
      .where('name', '=', row.name)
      .where('revision', '=', row.revision)
      .execute();
    moved++;
  }
  return moved;
}
