import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from './database.js';

/** `audit_entries`: the hash-chained audit log (docs/authorization.md), one row per entry. */
export interface AuditEntriesTable {
  /** Position in the chain (primary key: two writers can never both take one). */
  seq: number | string;
  id: string;
  /** ISO 8601 UTC, as `Date#toISOString` writes it (compares as text). */
  at: string;
  subject: string;
  credential: string;
  action: string;
  workflow: string | null;
  execution_id: string | null;
  step: string | null;
  decision: string;
  reason: string;
  /** JSON `{roles, permissions}`. */
  required: string;
  /** JSON `{roles, permissions}`. */
  missing: string;
  prev_hash: string;
  hash: string;
  /** The workspace the entry is filed under (migration 0016); null when none was known. */
  owner: string | null;
}

/** Migration `0010_audit`: the audit log, and an index for reading it since an instant. */
export function auditMigration(dialect: Dialect): Migration {
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('audit_entries')
        .addColumn('seq', bigint, (c) => c.primaryKey())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('at', 'text', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('credential', 'text', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('workflow', 'text')
        .addColumn('execution_id', 'text')
        .addColumn('step', 'text')
        .addColumn('decision', 'text', (c) => c.notNull())
        .addColumn('reason', 'text', (c) => c.notNull())
        .addColumn('required', 'text', (c) => c.notNull())
        .addColumn('missing', 'text', (c) => c.notNull())
        .addColumn('prev_hash', 'text', (c) => c.notNull())
        .addColumn('hash', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('audit_entries_at')
        .on('audit_entries')
        .columns(['at', 'seq'])
        .execute();
    },
  };
}

/**
 * Migration `0016_audit_owner`: the workspace of each entry, outside what its hash covers, and
 * an index to list one workspace's entries. Entries stored before get the owner of the
 * execution they name, when that execution is still stored; the others stay null (admin keys
 * read them).
 */
export function auditOwnerMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('audit_entries').addColumn('owner', 'text').execute();
      await sql`UPDATE audit_entries SET owner = (
          SELECT executions.owner FROM executions WHERE executions.id = audit_entries.execution_id
        ) WHERE execution_id IS NOT NULL`.execute(db);
      await db.schema
        .createIndex('audit_entries_owner')
        .on('audit_entries')
        .columns(['owner', 'seq'])
        .execute();
    },
  };
}
