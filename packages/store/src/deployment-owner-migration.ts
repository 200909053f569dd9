import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from './database.js';

/**
 * Owner given to revisions recorded with neither a deploying key's owner nor a deployer snapshot:
 * those of the workflows directory before grants were recorded. `local` is the default of
 * `WEFT_WORKFLOWS_OWNER`; a server that set another one re-owns them with
 * `weft admin move-owner` (docs/authorization.md#workspaces).
 */
export const LEGACY_DIRECTORY_OWNER = 'local';

/**
 * Migration `0018_deployment_owner`: deployment names are per owner (workspace). Every revision,
 * active deployment and plugin reference gains an `owner` column and is keyed by (owner, name).
 * The owner is backfilled from what a revision recorded: the deploying key's owner
 * (`deployed_by`), else the deployer snapshot's owner (the workflows directory with grants),
 * else {@link LEGACY_DIRECTORY_OWNER}. The active pointer and plugin rows take their active
 * revision's owner, and the stored schedules move to the deployment's key (`owner/name`). SQLite
 * cannot change a primary key in place, so each table is rebuilt (on PostgreSQL too: one code
 * path, and the tables are small).
 */
export function deploymentOwnerMigration(dialect: Dialect): Migration {
  const snapshotOwner =
    dialect === 'postgres'
      ? sql`(deployer::json ->> 'owner')`
      : sql`json_extract(deployer, '$.owner')`;
  const owner = sql`coalesce(deployed_by, ${snapshotOwner}, ${LEGACY_DIRECTORY_OWNER})`;
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('deployment_revisions_owned')
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('revision', 'integer', (c) => c.notNull())
        .addColumn('version', 'text', (c) => c.notNull())
        .addColumn('definition', 'text', (c) => c.notNull())
        .addColumn('plugins', 'text', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('deployed_by', 'text')
        .addColumn('deployer', 'text')
        .addColumn('deployed_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('deployment_revisions_owned_pk', ['owner', 'name', 'revision'])
        .execute();
      await sql`INSERT INTO deployment_revisions_owned
        (owner, name, revision, version, definition, plugins, source, deployed_by, deployer, deployed_at)
        SELECT ${owner}, name, revision, version, definition, plugins, source, deployed_by,
          deployer, deployed_at FROM deployment_revisions`.execute(db);
      await db.schema
        .createTable('deployments_owned')
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('revision', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('deployments_owned_pk', ['owner', 'name'])
        .execute();
      await sql`INSERT INTO deployments_owned (owner, name, revision)
        SELECT r.owner, d.name, d.revision FROM deployments d
        JOIN deployment_revisions_owned r ON r.name = d.name AND r.revision = d.revision`.execute(
        db,
      );
      await db.schema
        .createTable('deployment_plugins_owned')
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('slug', 'text', (c) => c.notNull())
        .addColumn('version', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('deployment_plugins_owned_pk', [
          'owner',
          'name',
          'slug',
          'version',
        ])
        .execute();
      await sql`INSERT INTO deployment_plugins_owned (owner, name, slug, version)
        SELECT d.owner, p.name, p.slug, p.version FROM deployment_plugins p
        JOIN deployments_owned d ON d.name = p.name`.execute(db);
      for (const table of ['deployment_plugins', 'deployments', 'deployment_revisions']) {
        await db.schema.dropTable(table).execute();
        await db.schema.alterTable(`${table}_owned`).renameTo(table).execute();
      }
      // Schedules are stored under the deployment's key (`owner/name`) now: a schedule's next
      // fire and its claimed fires carry over, so an upgrade neither skips nor repeats a fire.
      for (const table of ['schedule_state', 'schedule_fires']) {
        await sql`UPDATE ${sql.table(table)} SET workflow = (
            SELECT d.owner || '/' || d.name FROM deployments d WHERE d.name = ${sql.ref(`${table}.workflow`)})
          WHERE EXISTS (SELECT 1 FROM deployments d WHERE d.name = ${sql.ref(`${table}.workflow`)})`.execute(
          db,
        );
      }
      await db.schema
        .createIndex('deployment_plugins_usage')
        .on('deployment_plugins')
        .columns(['slug', 'version'])
        .execute();
    },
  };
}
