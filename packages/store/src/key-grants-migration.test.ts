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

describe('API key grants (0009_key_grants)', () => {
  it('a key made before the migration reads back with no roles and no permissions', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'weft-key-grants-'));
    const db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: new BetterSqlite3(join(dataDir, 'weft.db')) }),
    });
    await migrate(db, 'sqlite', undefined, '0007_search_index_direct');
    await sql`INSERT INTO api_keys (id, name, owner, hash, admin, created_at)
      VALUES ('abc123abc123', 'ci', 'acme', 'ff', 1, '2026-01-01T00:00:00Z')`.execute(db);
    await db.destroy();
    opened = await openStore({ kind: 'sqlite', dataDir });
    expect(await opened.registry.findApiKey('abc123abc123')).toEqual({
      id: 'abc123abc123',
      name: 'ci',
      owner: 'acme',
      hash: 'ff',
      admin: true,
      roles: [],
      permissions: [],
      created_at: '2026-01-01T00:00:00Z',
    });
  });
});
