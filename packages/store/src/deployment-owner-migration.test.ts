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

const DEPLOYER = JSON.stringify({
  kind: 'local',
  subject: 'dir',
  owner: 'ops',
  key_id: 'local:dir',
  name: 'dir',
  roles: [],
  permissions: [],
});

/** Rows as a server before per-owner names stored them: one name, one namespace. */
async function legacyRows(db: Kysely<Database>): Promise<void> {
  await sql`INSERT INTO deployment_revisions
    (name, revision, version, definition, plugins, source, deployed_by, deployer, deployed_at)
    VALUES
      ('payout', 1, '1.0.0', '{"name":"payout"}', '[{"slug":"slack","version":"1.0.0"}]', 'api',
        'acme', null, '2026-01-01T00:00:00Z'),
      ('payout', 2, '2.0.0', '{"name":"payout"}', '[]', 'api', 'acme', null, '2026-01-02T00:00:00Z'),
      ('nightly', 1, '1.0.0', '{"name":"nightly"}', '[]', 'file:a.yaml', null, ${DEPLOYER},
        '2026-01-01T00:00:00Z'),
      ('old', 1, '1.0.0', '{"name":"old"}', '[]', 'file:b.yaml', null, null,
        '2026-01-01T00:00:00Z')`.execute(db);
  await sql`INSERT INTO deployments (name, revision)
    VALUES ('payout', 1), ('nightly', 1), ('old', 1)`.execute(db);
  await sql`INSERT INTO deployment_plugins (name, slug, version)
    VALUES ('payout', 'slack', '1.0.0')`.execute(db);
  await sql`INSERT INTO schedule_state (workflow, trigger_id, next_fire_at)
    VALUES ('nightly', 't', 1000), ('gone', 't', 2000)`.execute(db);
}

/** A store migrated up to 0017 with {@link legacyRows}, then opened (migrating the rest). */
async function upgraded(kind: 'sqlite' | 'postgres'): Promise<OpenedStore> {
  if (kind === 'sqlite') {
    const dataDir = mkdtempSync(join(tmpdir(), 'weft-deployment-owner-'));
    cleanup = async () => rmSync(dataDir, { recursive: true, force: true });
    const db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: new BetterSqlite3(join(dataDir, 'weft.db')) }),
    });
    await migrate(db, 'sqlite', undefined, '0017_retention');
    await legacyRows(db);
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
  await migrate(db, 'postgres', schema, '0017_retention');
  await legacyRows(db);
  await db.destroy();
  return openStore({ kind: 'postgres', url: url!, schema, poolSize: 2 });
}

describe.each([
  { kind: 'sqlite' as const, skip: false },
  { kind: 'postgres' as const, skip: !url },
])('owners of deployments (0018_deployment_owner, $kind)', ({ kind, skip }) => {
  it.skipIf(skip)(
    'backfills the owner from the deploying key, else the deployer, else the directory default',
    async () => {
      opened = await upgraded(kind);
      const store = opened.deployments;
      expect(await store.get('acme', 'payout')).toMatchObject({
        owner: 'acme',
        revision: 1,
        created_at: '2026-01-01T00:00:00Z',
      });
      expect((await store.history('acme', 'payout')).map((r) => r.revision)).toEqual([2, 1]);
      expect(await store.get('ops', 'nightly')).toMatchObject({ owner: 'ops', deployed_by: null });
      expect(await store.get('local', 'old')).toMatchObject({ owner: 'local' });
      expect(await store.revisions()).toEqual(
        new Map([
          ['acme/payout', 1],
          ['local/old', 1],
          ['ops/nightly', 1],
        ]),
      );
      expect(await store.usersOf('slack', '1.0.0')).toEqual(['payout']);
      // A schedule's next fire moves to its deployment's key; one of no deployment stays.
      expect(await opened.triggers.getNextFire('ops/nightly', 't')).toBe(1000);
      expect(await opened.triggers.getNextFire('nightly', 't')).toBeUndefined();
      expect(await opened.triggers.getNextFire('gone', 't')).toBe(2000);
      // The new key: another owner's deployment of the same name is its own revision 1.
      const theirs = await store.put({
        owner: 'evil',
        name: 'payout',
        version: '1.0.0',
        definition: {},
        plugins: [],
        source: 'api',
        deployed_by: 'evil',
        deployer: null,
        deployed_at: '2026-02-01T00:00:00Z',
      });
      expect(theirs.revision).toBe(1);
      expect((await store.put({ ...theirs, owner: 'acme', deployed_by: 'acme' })).revision).toBe(3);
    },
  );
});
