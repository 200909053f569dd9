import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { Database } from './database.js';
import { migrate } from './migrations.js';
import { openStore, type OpenedStore } from './open.js';

const url = process.env['WEFT_TEST_DATABASE_URL'];
let opened: OpenedStore | undefined;
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await opened?.executions.close();
  await opened?.registry.close();
  opened = undefined;
  await cleanup?.();
  cleanup = undefined;
});

/** Rows as a server before 0020 stored them: the trigger only inside its JSON. */
async function earlierRows(db: Kysely<Database>): Promise<void> {
  for (const [id, trigger, created] of [
    ['e1', '{"type":"schedule"}', '2026-01-01T00:00:01.000Z'],
    ['e2', '{"type":"api"}', '2026-01-01T00:00:02.000Z'],
  ]) {
    await sql`INSERT INTO executions (id, owner, key_id, workflow, workflow_version, mode, status,
      definition, inputs, "trigger", callback_url, created_at, lease_until)
      VALUES (${id}, 'acme', null, 'w', '1.0.0', 'cloud', 'completed', '{}', '{}', ${trigger},
        null, ${created}, 0)`.execute(db);
  }
  await sql`INSERT INTO deployment_revisions
    (owner, name, revision, version, definition, plugins, source, deployed_by, deployer, deployed_at)
    VALUES ('acme', 'nightly', 1, '1.0.0', '{"name":"nightly"}', '[]', 'api', 'acme', null,
      '2026-01-01T00:00:00Z')`.execute(db);
  await sql`INSERT INTO deployments (owner, name, revision) VALUES ('acme', 'nightly', 1)`.execute(
    db,
  );
}

async function upgraded(kind: 'sqlite' | 'postgres'): Promise<OpenedStore> {
  const before = '0019_resumed_from';
  if (kind === 'sqlite') {
    const dataDir = mkdtempSync(join(tmpdir(), 'weft-filters-'));
    cleanup = async () => rmSync(dataDir, { recursive: true, force: true });
    const db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: new BetterSqlite3(join(dataDir, 'weft.db')) }),
    });
    await migrate(db, 'sqlite', undefined, before);
    await earlierRows(db);
    await db.destroy();
    return openStore({ kind: 'sqlite', dataDir });
  }
  const schema = `weft_test_${randomBytes(6).toString('hex')}`;
  const pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}` });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  cleanup = async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  };
  await sql`CREATE SCHEMA ${sql.id(schema)}`.execute(db);
  await migrate(db, 'postgres', schema, before);
  await earlierRows(db);
  await db.destroy();
  return openStore({ kind: 'postgres', url: url!, schema, poolSize: 2 });
}

describe.each([
  { kind: 'sqlite' as const, skip: false },
  { kind: 'postgres' as const, skip: !url },
])('0022_execution_filters and 0023_deployment_text ($kind)', ({ kind, skip }) => {
  it.skipIf(skip)(
    'backfills the trigger type of stored executions; older revisions have no text',
    async () => {
      opened = await upgraded(kind);
      const listed = await opened.executions.list({
        owner: 'acme',
        trigger: 'schedule',
        limit: 10,
      });
      expect(listed.map((e) => e.id)).toEqual(['e1']);
      const nightly = await opened.deployments.get('acme', 'nightly');
      expect(nightly).toMatchObject({ name: 'nightly', revision: 1 });
      expect(nightly).not.toHaveProperty('source_text');
    },
  );
});
