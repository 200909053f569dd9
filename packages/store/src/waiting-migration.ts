import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from './database.js';

/**
 * `0008_waiting`: executions that wait (for an approval, later for an event) before they may
 * run on. `waiting_for` is the JSON of what it waits for; `wait_until` its deadline in epoch ms
 * (null: none). A partial index holds only waiting rows, so finding the earliest deadline and
 * the expired ones reads only those, and no other execution's writes touch it. Adding nullable
 * columns without a default rewrites no row on either database.
 */
export function waitingMigration(dialect: Dialect): Migration {
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('executions').addColumn('waiting_for', 'text').execute();
      await db.schema.alterTable('executions').addColumn('wait_until', bigint).execute();
      // `status` leads although it is constant here: SQLite would otherwise prefer
      // `executions_unfinished (status, lease_until)` and sort the waiting rows.
      await sql`CREATE INDEX executions_waiting ON executions (status, wait_until)
        WHERE status = 'waiting'`.execute(db);
    },
  };
}
