import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Migration `0031_partial_execution_indexes`: two indexes of `executions` keep only the rows
 * their queries look for, so that an execution's end, the hot path's update, moves it out of
 * them rather than into another place of each (see `executions-queries.ts` for the queries,
 * which name the conditions as written). The same statements on SQLite and PostgreSQL.
 *
 * - `executions_unfinished (status, lease_until)` held every execution, ended ones for ever;
 *   claims and leases only ask for `pending` and `running` ones. `executions_claimable` holds
 *   those (waiting ones have `executions_waiting`).
 * - `executions_owner_status (owner, status, created_at, id)` now leaves out `completed`, most
 *   executions: a list of an owner's completed executions walks `executions_owner_created`
 *   newest first and skips the others, every other status keeps its index.
 *
 * An execution that completes writes two index entries fewer (its end deletes one entry from
 * each rather than moving it), and both indexes stay as small as the unfinished executions.
 */
export function partialIndexesMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      // Kysely runs SQLite's migrations outside a transaction: each statement may run again
      // after a stop halfway.
      await sql`DROP INDEX IF EXISTS executions_unfinished`.execute(db);
      await sql`CREATE INDEX IF NOT EXISTS executions_claimable ON executions (status, lease_until)
        WHERE status = 'pending' OR status = 'running'`.execute(db);
      await sql`DROP INDEX IF EXISTS executions_owner_status`.execute(db);
      await sql`CREATE INDEX executions_owner_status ON executions (owner, status, created_at, id)
        WHERE status <> 'completed'`.execute(db);
    },
  };
}
