import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { Database } from './database.js';
import { migrate } from './migrations.js';
import { openStore, type OpenedStore } from './open.js';

let opened: OpenedStore | undefined;
let dataDir: string | undefined;
afterEach(async () => {
  await opened?.executions.close();
  await opened?.registry.close();
  opened = undefined;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  dataDir = undefined;
});

describe('the journal clustered by its key (0020_journal_clustered, sqlite)', () => {
  it('rebuilds both tables WITHOUT ROWID and keeps every row and the keys', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'weft-journal-clustered-'));
    const file = join(dataDir, 'weft.db');
    const db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: new BetterSqlite3(file) }),
    });
    await migrate(db, 'sqlite', undefined, '0019_resumed_from');
    await sql`INSERT INTO execution_steps (execution_id, path, data)
      VALUES ('e1', 'b', '{"b":1}'), ('e1', 'a', '{"a":1}'), ('e2', 'a', '{"a":2}')`.execute(db);
    await sql`INSERT INTO execution_events (execution_id, seq, type, data)
      VALUES ('e1', 2, 'step.completed', '{}'), ('e1', 1, 'step.started', '{}'),
        ('e2', 1, 'workflow.started', '{}')`.execute(db);
    await db.destroy();

    opened = await openStore({ kind: 'sqlite', dataDir });
    const store = opened.executions;
    expect((await store.steps('e1')).sort((x, y) => x.path.localeCompare(y.path))).toEqual([
      { path: 'a', json: '{"a":1}' },
      { path: 'b', json: '{"b":1}' },
    ]);
    expect((await store.events('e1', 0, 10)).map((e) => [e.seq, e.type])).toEqual([
      [1, 'step.started'],
      [2, 'step.completed'],
    ]);
    expect(await store.lastEventSeq('e2')).toBe(1);
    // The writers' conflict clauses still find the key: a step replaced, an event kept once.
    await store.journal(
      'e1',
      [{ path: 'a', json: '{"a":"again"}' }],
      [{ seq: 2, type: 'step.completed', json: '{"dup":true}' }],
    );
    expect((await store.steps('e1')).find((s) => s.path === 'a')?.json).toBe('{"a":"again"}');
    expect((await store.events('e1', 1, 10))[0]?.json).toBe('{}');

    const check = new BetterSqlite3(file, { readonly: true });
    const tables = check
      .prepare(
        "SELECT sql FROM sqlite_master WHERE name IN ('execution_steps', 'execution_events')",
      )
      .all() as { sql: string }[];
    check.close();
    expect(tables).toHaveLength(2);
    for (const { sql: text } of tables) expect(text).toMatch(/WITHOUT ROWID$/);
  });
});
