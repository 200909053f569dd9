import { Migrator, sql, type Kysely, type Migration } from 'kysely';
import { InternalError } from '@weft/core';
import type { Database, Dialect } from './database.js';
import { executionsMigration } from './executions-migration.js';
import { searchFoldMigration } from './search-fold-migration.js';
import { searchIndexMigration } from './search-index-migration.js';
import { triggersMigration } from './triggers-migration.js';
import { waitingMigration } from './waiting-migration.js';
import { auditMigration, auditOwnerMigration } from './audit-migration.js';
import { retentionMigration } from './retention-migration.js';
import { deploymentOwnerMigration } from './deployment-owner-migration.js';
import {
  journalPackedMigration,
  postgresJournalPackedMigration,
} from './journal-packed-migration.js';
import { journalClusteredMigration } from './journal-clustered-migration.js';
import { executionFiltersMigration } from './execution-filters-migration.js';
import { budgetsMigration } from './budgets-migration.js';
import { partialIndexesMigration } from './partial-indexes-migration.js';
import { usageShardsMigration } from './usage-shards-migration.js';

/** The one migration set of weft, in order; dialect-specific only where SQL differs. */
function migrations(dialect: Dialect): Record<string, Migration> {
  return {
    '0001_registry': {
      async up(db: Kysely<unknown>) {
        const bytes = dialect === 'postgres' ? 'bytea' : 'blob';
        await db.schema
          .createTable('plugins')
          .addColumn('slug', 'text', (c) => c.primaryKey())
          .addColumn('slug_key', 'text', (c) => c.notNull().unique())
          .addColumn('owner', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .addColumn('downloads', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('latest_version', 'text')
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('description', 'text', (c) => c.notNull())
          .addColumn('author', 'text', (c) => c.notNull())
          .addColumn('tags', 'text', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('plugin_versions')
          .addColumn('slug', 'text', (c) => c.notNull().references('plugins.slug'))
          .addColumn('version', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('published_at', 'text', (c) => c.notNull())
          .addColumn('checksum', 'text', (c) => c.notNull())
          .addColumn('content_type', 'text', (c) => c.notNull())
          .addColumn('body', bytes, (c) => c.notNull())
          .addColumn('definition', 'text', (c) => c.notNull())
          .addColumn('signature_key_id', 'text')
          .addColumn('deprecated_reason', 'text')
          .addColumn('replacement_version', 'text')
          .addColumn('deprecated_at', 'text')
          .addColumn('removed_at', 'text')
          .addColumn('downloads', 'integer', (c) => c.notNull().defaultTo(0))
          .addPrimaryKeyConstraint('plugin_versions_pk', ['slug', 'version'])
          .execute();
        await db.schema
          .createTable('plugin_tags')
          .addColumn('slug', 'text', (c) => c.notNull().references('plugins.slug'))
          .addColumn('tag', 'text', (c) => c.notNull())
          .addPrimaryKeyConstraint('plugin_tags_pk', ['slug', 'tag'])
          .execute();
        await db.schema
          .createIndex('plugin_tags_tag')
          .on('plugin_tags')
          .columns(['tag', 'slug'])
          .execute();
        await db.schema
          .createIndex('plugins_rank')
          .on('plugins')
          .columns(['downloads desc', 'slug'])
          .execute();
        await db.schema
          .createTable('download_days')
          .addColumn('slug', 'text', (c) => c.notNull())
          .addColumn('version', 'text', (c) => c.notNull())
          .addColumn('date', 'text', (c) => c.notNull())
          .addColumn('downloads', 'integer', (c) => c.notNull())
          .addPrimaryKeyConstraint('download_days_pk', ['slug', 'version', 'date'])
          .execute();
        await db.schema
          .createTable('api_keys')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('owner', 'text', (c) => c.notNull())
          .addColumn('hash', 'text', (c) => c.notNull())
          .addColumn('admin', 'integer', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('signing_keys')
          .addColumn('owner', 'text', (c) => c.notNull())
          .addColumn('fingerprint', 'text', (c) => c.notNull())
          .addColumn('key_id', 'text', (c) => c.notNull())
          .addColumn('key_ids', 'text', (c) => c.notNull())
          .addColumn('armored', 'text', (c) => c.notNull())
          .addColumn('user_ids', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addPrimaryKeyConstraint('signing_keys_pk', ['owner', 'fingerprint'])
          .execute();
        if (dialect === 'postgres') {
          await sql`ALTER TABLE plugins
            ADD COLUMN search_all tsvector NOT NULL DEFAULT ''::tsvector,
            ADD COLUMN search_name tsvector NOT NULL DEFAULT ''::tsvector,
            ADD COLUMN search_tags tsvector NOT NULL DEFAULT ''::tsvector`.execute(db);
          await sql`CREATE INDEX plugins_search ON plugins USING gin (search_all)`.execute(db);
        } else {
          await sql`CREATE VIRTUAL TABLE plugin_search USING fts5(
            slug UNINDEXED, name, tags, description, tokenize = 'unicode61 remove_diacritics 2')`.execute(
            db,
          );
        }
      },
    },
    '0002_routes': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('router_instances')
          .addColumn('plugin_slug', 'text', (c) => c.notNull())
          .addColumn('instance_id', 'text', (c) => c.notNull())
          .addColumn('version', 'text', (c) => c.notNull())
          .addColumn('url', 'text', (c) => c.notNull())
          .addColumn('actions', 'text', (c) => c.notNull())
          .addColumn('health_check_url', 'text', (c) => c.notNull())
          .addColumn('region', 'text')
          .addColumn('metadata', 'text', (c) => c.notNull())
          .addColumn('registered_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .addColumn('health', 'text', (c) => c.notNull())
          .addColumn('last_check_at', 'text')
          .addColumn('last_error', 'text')
          .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('next_check_at', 'bigint', (c) => c.notNull())
          .addColumn('lease_owner', 'text')
          .addColumn('lease_until', 'bigint', (c) => c.notNull().defaultTo(0))
          .addPrimaryKeyConstraint('router_instances_pk', ['plugin_slug', 'instance_id'])
          .execute();
        await db.schema
          .createIndex('router_instances_due')
          .on('router_instances')
          .columns(['next_check_at'])
          .execute();
      },
    },
    '0003_executions': executionsMigration(dialect),
    '0004_triggers': triggersMigration(dialect),
    '0005_search_ids': {
      // SQLite: the full-text rows are keyed by a stable integer id of their plugin, so that a
      // search joins plugins by that id and a listing change replaces its row by rowid. Before,
      // both went by slug, an unindexed column of the FTS table: every publish scanned the whole
      // index (1.8 ms at 10,000 plugins), and every match read its slug from the FTS content.
      // A plugin's `rowid` itself is not stable (VACUUM may renumber it).
      async up(db: Kysely<unknown>) {
        if (dialect === 'postgres') return;
        await sql`ALTER TABLE plugins ADD COLUMN search_id integer`.execute(db);
        await sql`UPDATE plugins SET search_id = rowid`.execute(db);
        await sql`CREATE UNIQUE INDEX plugins_search_id ON plugins (search_id)`.execute(db);
        await sql`CREATE TEMP TABLE plugin_search_copy AS
          SELECT slug, name, tags, description FROM plugin_search`.execute(db);
        await sql`DELETE FROM plugin_search`.execute(db);
        await sql`INSERT INTO plugin_search (rowid, slug, name, tags, description)
          SELECT p.search_id, c.slug, c.name, c.tags, c.description
          FROM plugin_search_copy c JOIN plugins p ON p.slug = c.slug`.execute(db);
        await sql`DROP TABLE plugin_search_copy`.execute(db);
      },
    },
    '0006_search_fold': searchFoldMigration(dialect),
    '0007_search_index_direct': {
      // PostgreSQL: the full-text index is updated by every listing change itself, instead of
      // through GIN's pending list. With the pending list (the default), every search scanned
      // all entries not yet merged, up to 4 MB of them until a vacuum came: at 10,000 plugins a
      // selective search took ~5 ms instead of ~0.4 ms. Listing changes are rare; searches are not.
      async up(db: Kysely<unknown>) {
        if (dialect !== 'postgres') return;
        await sql`ALTER INDEX plugins_search SET (fastupdate = off)`.execute(db);
        await sql`SELECT gin_clean_pending_list('plugins_search'::regclass)`.execute(db);
      },
    },
    '0008_waiting': waitingMigration(dialect),
    '0009_key_grants': {
      // API keys carry roles and permissions (JSON arrays of strings); keys made before carry none.
      async up(db: Kysely<unknown>) {
        await db.schema
          .alterTable('api_keys')
          .addColumn('roles', 'text', (c) => c.notNull().defaultTo('[]'))
          .execute();
        await db.schema
          .alterTable('api_keys')
          .addColumn('permissions', 'text', (c) => c.notNull().defaultTo('[]'))
          .execute();
      },
    },
    '0010_audit': auditMigration(dialect),
    '0011_started_by': {
      // Who started an execution (JSON of `StartedBy`): step checks read it on any server.
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable('executions').addColumn('started_by', 'text').execute();
      },
    },
    '0012_deployer': {
      // Who deployed a revision (JSON of `DeployerSnapshot`): runs of its triggers act as it.
      // Revisions stored before carry none, and their triggered runs act with no grants.
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable('deployment_revisions').addColumn('deployer', 'text').execute();
      },
    },
    '0013_key_revocation': {
      // When an API key was revoked; null while it is valid.
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable('api_keys').addColumn('revoked_at', 'text').execute();
      },
    },
    '0014_trace_context': {
      // The trace an execution's runs belong to (JSON of `TraceContext`): a run resumed on
      // another server or after an approval stays in it. Null for untraced executions; a
      // nullable column without a default rewrites no row on either database.
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable('executions').addColumn('trace_context', 'text').execute();
      },
    },
    '0015_plugin_kind': {
      // What a slug holds: `plugin`, or `agent` for a published agent definition; search
      // filters by it. Slugs stored before are plugins.
      async up(db: Kysely<unknown>) {
        await db.schema
          .alterTable('plugins')
          .addColumn('kind', 'text', (c) => c.notNull().defaultTo('plugin'))
          .execute();
      },
    },
    '0016_audit_owner': auditOwnerMigration(),
    '0017_retention': retentionMigration(dialect),
    '0018_deployment_owner': deploymentOwnerMigration(dialect),
    '0019_resumed_from': {
      // The execution and step a rerun resumes (JSON of `ResumedFrom`); null for every other
      // execution. A nullable column without a default rewrites no row on either database.
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable('executions').addColumn('resumed_from', 'text').execute();
      },
    },
    '0020_journal_clustered': journalClusteredMigration(dialect),
    '0021_search_indexes': searchIndexMigration(dialect),
    '0022_execution_filters': executionFiltersMigration(dialect),
    '0023_deployment_text': {
      // The text a revision was deployed from (YAML or JSON as sent), shown by the console;
      // null for the revisions stored before.
      async up(db: Kysely<unknown>) {
        await db.schema
          .alterTable('deployment_revisions')
          .addColumn('source_text', 'text')
          .execute();
      },
    },
    '0024_budgets': budgetsMigration(dialect),
    '0025_deployment_lock': {
      // The lock a revision was deployed with (JSON of a `WorkflowLock`, `weft workflow
      // deploy` with a weft.lock); null for the revisions stored before and those sent without.
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable('deployment_revisions').addColumn('lock', 'text').execute();
      },
    },
    '0030_journal_packed': journalPackedMigration(dialect),
    '0031_partial_execution_indexes': partialIndexesMigration(),
    '0032_search_name_key': {
      // PostgreSQL: the search walk (`search-walk.ts`) finds the plugin named exactly like the
      // query by its folded name; without an index that read every match of the query's words.
      // SQLite found it by a full-text phrase (until 0034).
      async up(db: Kysely<unknown>) {
        if (dialect !== 'postgres') return;
        await sql`CREATE INDEX plugins_name_key ON plugins (name_key)
          WHERE latest_version IS NOT NULL`.execute(db);
      },
    },
    '0033_usage_shards': usageShardsMigration(dialect),
    '0034_sqlite_search_name_key': {
      // SQLite: the search walk finds the plugin named exactly like the query by its folded
      // name, as PostgreSQL does since 0032. The full-text phrase of its words anchored at the
      // name's start found every name beginning with them (`slack`: 250), each then read:
      // ~60 µs of a ~250 µs search.
      async up(db: Kysely<unknown>) {
        if (dialect !== 'sqlite') return;
        await sql`CREATE INDEX plugins_name_key ON plugins (name_key)
          WHERE latest_version IS NOT NULL`.execute(db);
      },
    },
    '0035_postgres_journal_packed': postgresJournalPackedMigration(dialect),
  };
}

/**
 * Applies every migration not yet applied (or those up to `target`, which tests of upgrades
 * use); throws when one fails. `schema` (PostgreSQL) names where Kysely's own migration tables
 * are: without it Kysely may find them in another schema of the same database and then fail to
 * read them through the search path.
 */
export async function migrate(
  db: Kysely<Database>,
  dialect: Dialect,
  schema?: string,
  target?: string,
): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations(dialect) },
    ...(schema !== undefined ? { migrationTableSchema: schema } : {}),
  });
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await (target === undefined
      ? migrator.migrateToLatest()
      : migrator.migrateTo(target));
    if (!error) return;
    // Kysely looks for its own tables by introspecting every schema of the database; a schema
    // that another process drops or migrates at that moment fails the lookup. When no migration
    // ran (none failed), looking again is safe.
    const ran = results?.some((r) => r.status === 'Error') ?? false;
    if (attempt < 5 && !ran && isVanishedSchema(error)) {
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
      continue;
    }
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    const cause = error instanceof Error ? error : new Error(String(error));
    throw new InternalError(`database migration ${failed} failed: ${cause.message}`, {
      error_type: cause.name,
      stack_trace: cause.stack ?? '',
    });
  }
}

/**
 * PostgreSQL's "schema does not exist", "relation does not exist" and "column does not exist"
 * (another schema's table changing under its migration) during introspection.
 */
function isVanishedSchema(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '3F000' || code === '42P01' || code === '42703';
}
