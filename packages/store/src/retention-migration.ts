import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from './database.js';

/** `audit_anchor`: one row, the last audit entry retention deleted (`AuditStore.anchor`). */
export interface AuditAnchorTable {
  /** Always 1: there is one anchor. */
  id: number;
  seq: number | string;
  hash: string;
  /** ISO 8601 UTC of the deletion. */
  pruned_at: string;
}

/**
 * Migration `0017_retention`: an index of ended executions by when they finished (retention
 * finds the oldest without reading the table), and the audit log's anchor.
 */
export function retentionMigration(dialect: Dialect): Migration {
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      // Partial: unfinished executions (the hot rows) are never in it.
      await db.schema
        .createIndex('executions_finished')
        .on('executions')
        .columns(['finished_at', 'id'])
        .where(sql.ref('finished_at'), 'is not', null)
        .execute();
      // Retention deletes an execution's idempotency key with it.
      await db.schema
        .createIndex('execution_idempotency_execution')
        .on('execution_idempotency')
        .column('execution_id')
        .execute();
      await db.schema
        .createTable('audit_anchor')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('seq', bigint, (c) => c.notNull())
        .addColumn('hash', 'text', (c) => c.notNull())
        .addColumn('pruned_at', 'text', (c) => c.notNull())
        .execute();
    },
  };
}
