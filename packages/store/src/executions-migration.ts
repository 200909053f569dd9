import type { Kysely, Migration } from 'kysely';
import type { Dialect } from './database.js';

/**
 * Migration `0003_executions`: execution records, their journal of finished steps, their events
 * for replay, idempotency keys, callback attempts, callback signing secrets and usage.
 */
export function executionsMigration(dialect: Dialect): Migration {
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('executions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('key_id', 'text')
        .addColumn('workflow', 'text', (c) => c.notNull())
        .addColumn('workflow_version', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('definition', 'text', (c) => c.notNull())
        .addColumn('inputs', 'text', (c) => c.notNull())
        .addColumn('trigger', 'text', (c) => c.notNull())
        .addColumn('callback_url', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('started_at', 'text')
        .addColumn('finished_at', 'text')
        .addColumn('canceled_at', 'text')
        .addColumn('result', 'text')
        .addColumn('error', 'text')
        .addColumn('callback', 'text')
        .addColumn('lease_owner', 'text')
        .addColumn('lease_until', bigint, (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createIndex('executions_owner_created')
        .on('executions')
        .columns(['owner', 'created_at', 'id'])
        .execute();
      await db.schema
        .createIndex('executions_unfinished')
        .on('executions')
        .columns(['status', 'lease_until'])
        .execute();
      await db.schema
        .createTable('execution_steps')
        .addColumn('execution_id', 'text', (c) => c.notNull())
        .addColumn('path', 'text', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('execution_steps_pk', ['execution_id', 'path'])
        .execute();
      await db.schema
        .createTable('execution_events')
        .addColumn('execution_id', 'text', (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('execution_events_pk', ['execution_id', 'seq'])
        .execute();
      await db.schema
        .createTable('execution_idempotency')
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn('idempotency_key', 'text', (c) => c.notNull())
        .addColumn('execution_id', 'text', (c) => c.notNull())
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('execution_idempotency_pk', ['key_id', 'idempotency_key'])
        .execute();
      await db.schema
        .createTable('callback_attempts')
        .addColumn('execution_id', 'text', (c) => c.notNull())
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('at', 'text', (c) => c.notNull())
        .addColumn('status', 'integer')
        .addColumn('error', 'text')
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('callback_attempts_pk', ['execution_id', 'attempt'])
        .execute();
      await db.schema
        .createTable('callback_secrets')
        .addColumn('key_id', 'text', (c) => c.primaryKey())
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('usage_days')
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('date', 'text', (c) => c.notNull())
        .addColumn('executions', bigint, (c) => c.notNull())
        .addColumn('action_calls', bigint, (c) => c.notNull())
        .addColumn('duration_ms', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('usage_days_pk', ['key_id', 'date'])
        .execute();
      await db.schema
        .createIndex('usage_days_owner')
        .on('usage_days')
        .columns(['owner', 'date'])
        .execute();
    },
  };
}
