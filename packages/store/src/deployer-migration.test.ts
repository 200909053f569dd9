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
