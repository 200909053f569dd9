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

/** A revision as a server before 0025 stored it: no lock column. */
async function earlierRevision(db: Kysely<Database>): Promise<void> {
  await sql`INSERT INTO deployment_revisions
    (owner, name, revision, version, definition, plugins, source, deployed_by, deployer, deployed_at)
    VALUES ('acme', 'nightly', 1, '1.0.0', '{"name":"nightly"}', '[]', 'api', 'acme', null,
      '2026-01-01T00:00:00Z')`.execute(db);
  await sql`INSERT INTO deployments (owner, name, revision) VALUES ('acme', 'nightly', 1)`.execute(
    db,
  );
}

async function upgraded(kind: 'sqlite' | 'postgres'): Promise<OpenedStore> {
  const before = '0023_deployment_text';
  if (kind === 'sqlite') {
    const dataDir = mkdtempSync(join(tmpdir(), 'weft-lock-migration-'));
    cleanup = async () => rmSync(dataDir, { recursive: true, force: true });
    const db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: new BetterSqlite3(join(dataDir, 'weft.db')) }),
    });
    await migrate(db, 'sqlite', undefined, before);
    await earlierRevision(db);
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
  await earlierRevision(db);
  await db.destroy();
  return openStore({ kind: 'postgres', url: url!, schema, poolSize: 2 });
}

describe.each([
  { kind: 'sqlite' as const, skip: false },
  { kind: 'postgres' as const, skip: !url },
])('0025_deployment_lock ($kind)', ({ kind, skip }) => {
  it.skipIf(skip)(
    'keeps older revisions without a lock and stores the next one with it',
    async () => {
      opened = await upgraded(kind);
      const nightly = await opened.deployments.get('acme', 'nightly');
      expect(nightly).toMatchObject({ name: 'nightly', revision: 1 });
      expect(nightly).not.toHaveProperty('lock');
      const lock = {
        version: '1.0.1',
        plugins: { t: { version: '1.0.0', checksum: `sha256:${'c'.repeat(64)}` } },
      };
      await opened.deployments.put({
        owner: 'acme',
        name: 'nightly',
        version: '1.0.1',
        definition: { name: 'nightly' },
        plugins: [],
        source: 'api',
        deployed_by: 'acme',
        deployer: null,
        deployed_at: '2026-01-02T00:00:00Z',
        lock,
      });
      expect((await opened.deployments.get('acme', 'nightly'))!.lock).toEqual(lock);
    },
  );
});
