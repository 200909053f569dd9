import { sql, type Kysely } from 'kysely';
import { CLAIMABLE_STATUSES, WORKER_INCARNATION_LENGTH, type ExecutionQuery } from '@weft/core';
import type { Database } from './database.js';
import { EXECUTION_COLUMNS } from './executions-rows.js';

/**
 * The reads of `executions` that two partial indexes serve (migration
 * `0031_partial_execution_indexes`). SQLite uses a partial index only when the query's WHERE
 * contains the index's condition as written (a literal, not a parameter), and PostgreSQL's
 * generic plans likewise prove it only from literals, so these queries name it:
 *
 * - `executions_claimable (status, lease_until)`, of the rows a worker may claim:
 *   `status = 'pending' OR status = 'running'`. A query of `status = 'running'` implies it.
 * - `executions_owner_status (owner, status, created_at, id)`, of every status but `completed`:
 *   `status <> 'completed'`. A list of completed executions walks `executions_owner_created`
 *   instead and skips the few others.
 */
export const CLAIMABLE = sql<boolean>`(${sql.join(
  [...CLAIMABLE_STATUSES].map((status) => sql`status = ${sql.lit(status)}`),
  sql` OR `,
)})`;
/** The condition of `executions_owner_status` (see above). */
export const NOT_COMPLETED = sql<boolean>`status <> ${sql.lit('completed')}`;
/** `status = 'running'` as a literal (which implies {@link CLAIMABLE}). */
const RUNNING = sql.lit('running');

/** A page of executions, newest first (`ExecutionsStore.list`). */
export function listQuery(db: Kysely<Database>, query: ExecutionQuery) {
  let select = db.selectFrom('executions').select(EXECUTION_COLUMNS);
  if (query.owner !== undefined) select = select.where('owner', '=', query.owner);
  if (query.status) {
    select = select.where('status', '=', query.status);
    if (query.status !== 'completed') select = select.where(NOT_COMPLETED);
  }
  if (query.workflow) select = select.where('workflow', '=', query.workflow);
  if (query.trigger) select = select.where('trigger_type', '=', query.trigger);
  if (query.from) select = select.where('created_at', '>=', query.from);
  if (query.to) select = select.where('created_at', '<', query.to);
  const after = query.after;
  if (after) {
    select = select.where((eb) =>
      eb.or([
        eb('created_at', '<', after.created_at),
        eb.and([eb('created_at', '=', after.created_at), eb('id', '<', after.id)]),
      ]),
    );
  }
  return select.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(query.limit);
}

/** Ids of claimable executions whose lease expired, oldest first (`ExecutionsStore.claimable`). */
export function claimableQuery(db: Kysely<Database>, now: number, limit: number) {
  return db
    .selectFrom('executions')
    .select('id')
    .where(CLAIMABLE)
    .where('lease_until', '<', now)
    .orderBy('created_at')
    .limit(limit);
}

/** How many executions {@link claimableQuery} would find without its limit. */
export function claimableCountQuery(db: Kysely<Database>, now: number) {
  return db
    .selectFrom('executions')
    .select((eb) => eb.fn.countAll().as('n'))
    .where(CLAIMABLE)
    .where('lease_until', '<', now);
}

/**
 * Releases the leases held by earlier incarnations of `replica` (not `current`), returning
 * their ids (`ExecutionsStore.releaseReplicaLeases`).
 */
export function releaseLeasesQuery(db: Kysely<Database>, replica: string, current: string) {
  const prefix = `${replica}#`;
  // Characters, as substr and length count them on both databases.
  const chars = [...prefix].length;
  return (
    db
      .updateTable('executions')
      .set({ lease_until: 0 })
      .where('status', '=', RUNNING)
      .where('lease_owner', '!=', current)
      .where(sql<string>`substr(lease_owner, 1, ${chars})`, '=', prefix)
      // Exactly one incarnation after the prefix: replica `a` never takes the leases of `a#b`.
      .where(sql<number>`length(lease_owner)`, '=', chars + WORKER_INCARNATION_LENGTH)
      .returning('id')
  );
}
