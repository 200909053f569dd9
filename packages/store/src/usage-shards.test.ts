import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { Database } from './database.js';
import { DONE, execution } from './executions-contract-fixtures.js';
import { migrate } from './migrations.js';
import { openStore, type OpenedStore } from './open.js';
import { dropTestSchema, testSchemaName } from './test-stores.js';

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

const DAYS = [
  { key_id: 'k1', date: '2026-01-01', executions: 3, action_calls: 5, duration_ms: 70 },
  { key_id: 'k2', date: '2026-01-01', executions: 1, action_calls: 0, duration_ms: 9 },
  { key_id: 'k1', date: '2026-01-02', executions: 2, action_calls: 1, duration_ms: 20 },
];

/** Usage as a server before 0033 stored it: one row per key and day. */
async function earlierRows(db: Kysely<Database>): Promise<void> {
  for (const day of DAYS) {
    await sql`INSERT INTO usage_days (key_id, owner, date, executions, action_calls, duration_ms)
      VALUES (${day.key_id}, 'acme', ${day.date}, ${day.executions}, ${day.action_calls},
        ${day.duration_ms})`.execute(db);
  }
}

/** Where SQLite's rebuild of `usage_days` stopped before the store opened (and ran it again). */
type Stop = 'none' | 'copied' | 'dropped';

/** Reads rows of the store's database: `usage_days` and its indexes. */
type Query = <T>(text: string) => Promise<T[]>;

/** A store migrated to 0032 with {@link earlierRows}, then opened (migrating the rest). */
async function upgraded(kind: 'sqlite' | 'postgres', stop: Stop = 'none'): Promise<Query> {
  const before = '0032_search_name_key';
  if (kind === 'sqlite') {
    const dataDir = mkdtempSync(join(tmpdir(), 'weft-usage-shards-'));
    cleanup = async () => rmSync(dataDir, { recursive: true, force: true });
    const file = join(dataDir, 'weft.db');
    const db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: new BetterSqlite3(file) }),
    });
    await migrate(db, 'sqlite', undefined, before);
    await earlierRows(db);
    if (stop !== 'none') {
      // The first steps of 0033, as a stopped run left them: the copy made (a part of it, or
      // all and the old table dropped).
      await sql`CREATE TABLE usage_days_sharded (
        key_id text NOT NULL, owner text NOT NULL, date text NOT NULL,
        shard integer NOT NULL DEFAULT 0, executions integer NOT NULL,
        action_calls integer NOT NULL, duration_ms integer NOT NULL,
        CONSTRAINT usage_days_pk PRIMARY KEY (key_id, date, shard))`.execute(db);
      await sql`INSERT INTO usage_days_sharded
        (key_id, owner, date, executions, action_calls, duration_ms)
        SELECT key_id, owner, date, executions, action_calls, duration_ms FROM usage_days
        ${stop === 'copied' ? sql`WHERE key_id = 'k1'` : sql``}`.execute(db);
      if (stop === 'dropped') await sql`DROP TABLE usage_days`.execute(db);
    }
    await db.destroy();
    opened = await openStore({ kind: 'sqlite', dataDir });
    return async <T>(text: string) => {
      const reader = new BetterSqlite3(file, { readonly: true });
      try {
        return reader.prepare(text).all() as T[];
      } finally {
        reader.close();
      }
    };
  }
  const schema = testSchemaName();
  const pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}` });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  await sql`CREATE SCHEMA ${sql.id(schema)}`.execute(db);
  await migrate(db, 'postgres', schema, before);
  await earlierRows(db);
  opened = await openStore({ kind: 'postgres', url: url!, schema, poolSize: 8 });
  cleanup = async () => {
    await db.destroy();
    await dropTestSchema(url!, schema);
  };
  return async <T>(text: string) => (await sql.raw<T>(text).execute(db)).rows;
}

const usageOf = (store: OpenedStore) => store.executions.usage('acme', '2000-01-01');
const sorted = (rows: { key_id: string; date: string }[]) =>
  [...rows].sort((a, b) => a.date.localeCompare(b.date) || a.key_id.localeCompare(b.key_id));

describe.each([
  { kind: 'sqlite' as const, skip: false },
  { kind: 'postgres' as const, skip: !url },
])('0033_usage_shards ($kind)', ({ kind, skip }) => {
  it.skipIf(skip)('keeps the usage stored before, each day in shard 0', async () => {
    const query = await upgraded(kind);
    expect(await usageOf(opened!)).toEqual(sorted(DAYS));
    const shards = await query<{ shard: number }>('SELECT shard FROM usage_days');
    expect(shards.map((row) => Number(row.shard))).toEqual([0, 0, 0]);
    await opened!.executions.addUsage('k1', 'acme', '2026-01-01', {
      executions: 0,
      action_calls: 1,
      duration_ms: 5,
    });
    expect((await usageOf(opened!))[0]).toEqual({
      key_id: 'k1',
      date: '2026-01-01',
      executions: 3,
      action_calls: 6,
      duration_ms: 75,
    });
  });

  it.skipIf(skip)('sums exactly the usage of 200 executions ended at once', async () => {
    const query = await upgraded(kind);
    const store = opened!.executions;
    const records = Array.from({ length: 200 }, () => execution({ key_id: 'k9' }));
    for (const record of records) await store.create(record);
    const delta = { executions: 1, action_calls: 2, duration_ms: 7 };
    const usage = { keyId: 'k9', owner: 'acme', date: '2026-02-01', delta };
    const ended = await Promise.all([
      ...records.map((record) => store.finish(record.id, DONE, { events: [], usage })),
      ...records.slice(0, 50).map(async () => {
        await store.addUsage('k9', 'acme', '2026-02-01', {
          executions: 0,
          action_calls: 1,
          duration_ms: 1,
        });
        return true;
      }),
    ]);
    expect(ended.every(Boolean)).toBe(true);
    expect(await store.usage('acme', '2026-02-01')).toEqual([
      { key_id: 'k9', date: '2026-02-01', executions: 200, action_calls: 450, duration_ms: 1450 },
    ]);
    const rows = await query<{ n: number | string }>(
      `SELECT count(*) AS n FROM usage_days WHERE key_id = 'k9'`,
    );
    const spread = Number(rows[0]!.n);
    // SQLite writes one row; PostgreSQL spreads 250 writes over its 8 shards.
    if (kind === 'sqlite') expect(spread).toBe(1);
    else expect(spread).toBeGreaterThan(1);
  });
});

describe('0033_usage_shards (sqlite, run again after a stop)', () => {
  it.each(['copied', 'dropped'] as const)(
    'keeps every row once when the rebuild had stopped after the table was %s',
    async (stop) => {
      const query = await upgraded('sqlite', stop);
      expect(await usageOf(opened!)).toEqual(sorted(DAYS));
      const tables = await query<{ name: string }>(
        `SELECT name FROM sqlite_master WHERE tbl_name LIKE 'usage_days%' ORDER BY name`,
      );
      expect(tables.map((row) => row.name)).toEqual([
        'sqlite_autoindex_usage_days_1',
        'usage_days',
        'usage_days_owner',
      ]);
    },
  );
});
