import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { Database } from './database.js';
import { migrate } from './migrations.js';
import { openStore, type OpenedStore } from './open.js';

let opened: OpenedStore | undefined;
afterEach(async () => {
  await opened?.registry.close();
  opened = undefined;
});

describe('deployers of deployments (0012_deployer)', () => {
  it('a revision stored before the migration reads back with no deployer', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'weft-deployer-'));
    const db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: new BetterSqlite3(join(dataDir, 'weft.db')) }),
    });
    await migrate(db, 'sqlite', undefined, '0011_started_by');
    await sql`INSERT INTO deployment_revisions
      (name, revision, version, definition, plugins, source, deployed_by, deployed_at)
      VALUES ('nightly', 1, '1.0.0', '{"name":"nightly"}', '[]', 'api', 'acme',
        '2026-01-01T00:00:00Z')`.execute(db);
    await sql`INSERT INTO deployments (name, revision) VALUES ('nightly', 1)`.execute(db);
    await db.destroy();
    opened = await openStore({ kind: 'sqlite', dataDir });
    expect(await opened.deployments.get('acme', 'nightly')).toMatchObject({
      name: 'nightly',
      deployed_by: 'acme',
      deployer: null,
    });
  });
});

describe('owners of deployments (0018_deployment_owner)', () => {
  it('backfills the owner from the deploying key, else the deployer, else the directory default', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'weft-deployment-owner-'));
    const db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: new BetterSqlite3(join(dataDir, 'weft.db')) }),
    });
    await migrate(db, 'sqlite', undefined, '0017_retention');
    const deployer = JSON.stringify({
      kind: 'local',
      subject: 'dir',
      owner: 'ops',
      key_id: 'local:dir',
      name: 'dir',
      roles: [],
      permissions: [],
    });
    await sql`INSERT INTO deployment_revisions
      (name, revision, version, definition, plugins, source, deployed_by, deployer, deployed_at)
      VALUES ('payout', 1, '1.0.0', '{"name":"payout"}', '[{"slug":"slack","version":"1.0.0"}]', 'api', 'acme', null, '2026-01-01T00:00:00Z'),
        ('payout', 2, '2.0.0', '{"name":"payout"}', '[]', 'api', 'acme', null, '2026-01-02T00:00:00Z'),
        ('nightly', 1, '1.0.0', '{"name":"nightly"}', '[]', 'file:a.yaml', null, ${deployer}, '2026-01-01T00:00:00Z'),
        ('old', 1, '1.0.0', '{"name":"old"}', '[]', 'file:b.yaml', null, null, '2026-01-01T00:00:00Z')`.execute(
      db,
    );
    await sql`INSERT INTO deployments (name, revision) VALUES ('payout', 1), ('nightly', 1), ('old', 1)`.execute(
      db,
    );
    await sql`INSERT INTO deployment_plugins (name, slug, version) VALUES ('payout', 'slack', '1.0.0')`.execute(
      db,
    );
    await db.destroy();
    opened = await openStore({ kind: 'sqlite', dataDir });
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
    expect((await store.put({ ...theirs, owner: 'acme' })).revision).toBe(3);
  });
});
