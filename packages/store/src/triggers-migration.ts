import type { Kysely, Migration } from 'kysely';
import type { Dialect } from './database.js';

/** Migration `0004_triggers`: webhook deliveries, rate buckets, schedules and deployments. */
export function triggersMigration(dialect: Dialect): Migration {
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer';
  const real = dialect === 'postgres' ? 'double precision' : 'real';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('delivery_id', 'text', (c) => c.notNull())
        .addColumn('expires_at', bigint, (c) => c.notNull())
        .addColumn('execution_id', 'text')
        .addPrimaryKeyConstraint('webhook_deliveries_pk', ['scope', 'delivery_id'])
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_expiry')
        .on('webhook_deliveries')
        .column('expires_at')
        .execute();
      await db.schema
        .createTable('rate_buckets')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('tokens', real, (c) => c.notNull())
        .addColumn('updated_ms', bigint, (c) => c.notNull())
        .addColumn('last_allowed', 'integer', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('schedule_state')
        .addColumn('workflow', 'text', (c) => c.notNull())
        .addColumn('trigger_id', 'text', (c) => c.notNull())
        .addColumn('next_fire_at', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('schedule_state_pk', ['workflow', 'trigger_id'])
        .execute();
      await db.schema
        .createTable('schedule_fires')
        .addColumn('workflow', 'text', (c) => c.notNull())
        .addColumn('trigger_id', 'text', (c) => c.notNull())
        .addColumn('fire_at', bigint, (c) => c.notNull())
        .addColumn('claimed_at', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('schedule_fires_pk', ['workflow', 'trigger_id', 'fire_at'])
        .execute();
      await db.schema
        .createIndex('schedule_fires_claimed')
        .on('schedule_fires')
        .column('claimed_at')
        .execute();
      await db.schema
        .createTable('deployment_revisions')
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('revision', 'integer', (c) => c.notNull())
        .addColumn('version', 'text', (c) => c.notNull())
        .addColumn('definition', 'text', (c) => c.notNull())
        .addColumn('plugins', 'text', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('deployed_by', 'text')
        .addColumn('deployed_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('deployment_revisions_pk', ['name', 'revision'])
        .execute();
      await db.schema
        .createTable('deployments')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('revision', 'integer', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('deployment_plugins')
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('slug', 'text', (c) => c.notNull())
        .addColumn('version', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('deployment_plugins_pk', ['name', 'slug', 'version'])
        .execute();
      await db.schema
        .createIndex('deployment_plugins_usage')
        .on('deployment_plugins')
        .columns(['slug', 'version'])
        .execute();
    },
  };
}
