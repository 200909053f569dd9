import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from './database.js';

/**
 * Migration `0022_execution_filters`: what the executions list filters on and the overview
 * counts. `trigger_type` (`api`, `schedule`, …) is copied out of the `trigger` JSON so that it
 * can be indexed (backfilled here, written with every new row); each filter of a listing has an
 * index in the listing's order (owner, filter, created_at, id), and `executions_created` serves
 * the lists of every owner (admin keys) and the time ranges.
 */
export function executionFiltersMigration(dialect: Dialect): Migration {
  const type =
    dialect === 'postgres'
      ? sql`("trigger"::json ->> 'type')`
      : sql`json_extract("trigger", '$.type')`;
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('executions').addColumn('trigger_type', 'text').execute();
      await sql`UPDATE executions SET trigger_type = ${type}`.execute(db);
      for (const [name, column] of [
        ['executions_owner_workflow', 'workflow'],
        ['executions_owner_status', 'status'],
        ['executions_owner_trigger', 'trigger_type'],
      ] as const) {
        await db.schema
          .createIndex(name)
          .on('executions')
          .columns(['owner', column, 'created_at', 'id'])
          .execute();
      }
      await db.schema
        .createIndex('executions_created')
        .on('executions')
        .columns(['created_at', 'id'])
        .execute();
    },
  };
}
