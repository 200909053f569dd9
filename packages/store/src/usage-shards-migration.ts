import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from './database.js';

/**
 * How many rows of `usage_days` a key's day is spread over on PostgreSQL (each write picks one
 * at random); SQLite, a single writer, writes shard 0 only.
 */
export const USAGE_SHARDS = 8;

/**
 * Migration `0033_usage_shards`: `usage_days` gets a `shard` (0 for every row stored before)
 * and the primary key `(key_id, date, shard)`; readers sum a key's day over its shards.
 *
 * On PostgreSQL an execution's end adds its usage in its synchronously committed statement;
 * with one row per key and day, the row lock was held until the commit had flushed, so the ends
 * of one key took turns and group commit could not merge their flushes. Spread over
 * {@link USAGE_SHARDS} rows they mostly do not meet.
 *
 * SQLite cannot change a primary key: the table is rebuilt. Kysely runs SQLite's migrations
 * outside a transaction, so each step may run again after a stop halfway: the copy ignores rows
 * already copied, and a table that already has `shard` is the rebuilt one.
 */
export function usageShardsMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect === 'postgres') {
        await sql`ALTER TABLE usage_days ADD COLUMN shard smallint NOT NULL DEFAULT 0`.execute(db);
        await sql`ALTER TABLE usage_days DROP CONSTRAINT usage_days_pk,
          ADD CONSTRAINT usage_days_pk PRIMARY KEY (key_id, date, shard)`.execute(db);
        return;
      }
      const columns = await sql<{
        name: string;
      }>`SELECT name FROM pragma_table_info('usage_days')`.execute(db);
      const names = columns.rows.map((column) => column.name);
      if (!names.includes('shard')) {
        await sql`CREATE TABLE IF NOT EXISTS usage_days_sharded (
          key_id text NOT NULL, owner text NOT NULL, date text NOT NULL,
          shard integer NOT NULL DEFAULT 0, executions integer NOT NULL,
          action_calls integer NOT NULL, duration_ms integer NOT NULL,
          CONSTRAINT usage_days_pk PRIMARY KEY (key_id, date, shard))`.execute(db);
        if (names.length > 0) {
          await sql`INSERT OR IGNORE INTO usage_days_sharded
            (key_id, owner, date, shard, executions, action_calls, duration_ms)
            SELECT key_id, owner, date, 0, executions, action_calls, duration_ms
            FROM usage_days`.execute(db);
          await sql`DROP TABLE usage_days`.execute(db);
        }
        await sql`ALTER TABLE usage_days_sharded RENAME TO usage_days`.execute(db);
      }
      await sql`CREATE INDEX IF NOT EXISTS usage_days_owner ON usage_days (owner, date)`.execute(
        db,
      );
    },
  };
}
