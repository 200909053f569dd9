import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { ExecutionsStore } from '@weft/core';
import type { Database } from './database.js';
import { migrate } from './migrations.js';
import { openStore, type OpenedStore } from './open.js';
import { dropTestSchema, testSchemaName } from './test-stores.js';

const url = process.env['WEFT_TEST_DATABASE_URL'];
let opened: OpenedStore | undefined;
let dataDir: string | undefined;
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await opened?.executions.close();
  await opened?.registry.close();
  opened = undefined;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  dataDir = undefined;
  await cleanup?.();
  cleanup = undefined;
});

/** Journal rows as a server stored them before packing: one event's JSON on several lines. */
async function insertEarlierRows(db: Kysely<Database>): Promise<void> {
  await sql`INSERT INTO execution_steps (execution_id, path, data)
    VALUES ('e1', 'b', '{"b":1}'), ('e1', 'a', '{"a":1}'), ('e2', 'a', '{"a":2}')`.execute(db);
  await sql`INSERT INTO execution_events (execution_id, seq, type, data)
    VALUES ('e1', 2, 'step.completed', '{}'), ('e1', 1, 'step.started', '{}'),
      ('e2', 1, 'workflow.started', ${'{\n  "pretty": "two\\nlines"\n}'})`.execute(db);
}

/** The rows of {@link insertEarlierRows} read back after the packing, then one written again. */
async function expectPackedRows(store: ExecutionsStore): Promise<void> {
  expect(await store.steps('e1')).toEqual([
    { path: 'a', json: '{"a":1}' },
    { path: 'b', json: '{"b":1}' },
  ]);
  expect((await store.events('e1', 0, 10)).map((e) => [e.seq, e.type])).toEqual([
    [1, 'step.started'],
    [2, 'step.completed'],
  ]);
  expect(await store.lastEventSeq('e2')).toBe(1);
  // JSON written on several lines is kept on one (lines frame the packed rows).
  const [pretty] = await store.events('e2', 0, 10);
  expect(pretty!.json).not.toContain('\n');
  expect(JSON.parse(pretty!.json)).toEqual({ pretty: 'two\nlines' });
  // A step written again replaces it; an event of a known seq is ignored.
  await store.journal(
    'e1',
    [{ path: 'a', json: '{"a":"again"}' }],
    [{ seq: 2, type: 'step.completed', json: '{"dup":true}' }],
  );
  expect((await store.steps('e1')).find((step) => step.path === 'a')?.json).toBe('{"a":"again"}');
  expect((await store.events('e1', 1, 10))[0]?.json).toBe('{}');
}

describe('the journal tables on SQLite (0020_journal_clustered, 0030_journal_packed)', () => {
  it('clusters both tables, then packs them in one, keeping every row and the keys', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'weft-journal-clustered-'));
    const file = join(dataDir, 'weft.db');
    const db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: new BetterSqlite3(file) }),
    });
    await migrate(db, 'sqlite', undefined, '0019_resumed_from');
    await insertEarlierRows(db);
    await migrate(db, 'sqlite', undefined, '0023_deployment_text');
    const clustered = await sql<{ sql: string }>`SELECT sql FROM sqlite_master
      WHERE name IN ('execution_steps', 'execution_events')`.execute(db);
    expect(clustered.rows).toHaveLength(2);
    for (const { sql: text } of clustered.rows) expect(text).toMatch(/WITHOUT ROWID$/);
    await db.destroy();

    opened = await openStore({ kind: 'sqlite', dataDir });
    await expectPackedRows(opened.executions);

    const check = new BetterSqlite3(file, { readonly: true });
    const names = check.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {
      name: string;
    }[];
    const rows = check.prepare('SELECT count(*) AS n FROM execution_journal').get() as {
      n: number;
    };
    check.close();
    expect(
      names
        .map((row) => row.name)
        .filter((name) => name.startsWith('execution_'))
        .sort(),
    ).toEqual(['execution_idempotency', 'execution_journal']);
    // Three steps and three events copied a row each, then one row for the write above.
    expect(rows.n).toBe(7);
  });

  it('journals a write in one packed row, and reads lines written by hand back as JSON', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'weft-journal-packed-'));
    opened = await openStore({ kind: 'sqlite', dataDir });
    const store = opened.executions;
    await store.journal(
      'e1',
      [
        { path: 'a', json: '{"a":1}' },
        { path: 'b', json: '{\n "b": "two\\nlines"\n}' },
      ],
      [
        { seq: 1, type: 'step.started', json: '{"s":1}' },
        { seq: 2, type: 'step.completed', json: '{"s":2}' },
      ],
    );
    await store.journal('e1', [{ path: 'a', json: '{"a":2}' }], []);
    const steps = await store.steps('e1');
    expect(steps.map((step) => [step.path, JSON.parse(step.json)])).toEqual([
      ['a', { a: 2 }],
      ['b', { b: 'two\nlines' }],
    ]);
    expect((await store.events('e1', 1, 10)).map((e) => [e.seq, e.type, e.json])).toEqual([
      [2, 'step.completed', '{"s":2}'],
    ]);
    expect(await store.lastEventSeq('e1')).toBe(2);
    const check = new BetterSqlite3(join(dataDir, 'weft.db'), { readonly: true });
    const rows = check.prepare('SELECT last_seq FROM execution_journal ORDER BY id').all();
    check.close();
    expect(rows).toEqual([{ last_seq: 2 }, { last_seq: 0 }]);
  });
});

describe('the journal tables on PostgreSQL (0035_postgres_journal_packed)', () => {
  it.skipIf(!url)('packs both tables in one, keeping every row and the keys', async () => {
    const schema = testSchemaName();
    const pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}` });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    cleanup = async () => {
      await db.destroy();
      await dropTestSchema(url!, schema);
    };
    await sql`CREATE SCHEMA ${sql.id(schema)}`.execute(db);
    await migrate(db, 'postgres', schema, '0034_sqlite_search_name_key');
    await insertEarlierRows(db);

    opened = await openStore({ kind: 'postgres', url: url!, schema, poolSize: 2 });
    await expectPackedRows(opened.executions);

    const tables = await sql<{ name: string }>`SELECT table_name AS name
      FROM information_schema.tables WHERE table_schema = ${schema}
        AND table_name LIKE 'execution\\_%' ORDER BY table_name`.execute(db);
    expect(tables.rows.map((row) => row.name)).toEqual([
      'execution_idempotency',
      'execution_journal',
    ]);
    const rows = await sql<{ n: string }>`SELECT count(*) AS n FROM execution_journal`.execute(db);
    // Three steps and three events copied a row each, then one row for the write above.
    expect(Number(rows.rows[0]!.n)).toBe(7);
  });
});
