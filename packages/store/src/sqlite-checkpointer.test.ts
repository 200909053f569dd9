import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteCheckpointer } from './sqlite-checkpointer.js';

const dirs: string[] = [];
const open = () => {
  const dir = mkdtempSync(join(tmpdir(), 'weft-checkpoint-'));
  dirs.push(dir);
  const file = join(dir, 'weft.db');
  const database = new BetterSqlite3(file);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, data TEXT NOT NULL)');
  return { file, database };
};
const autocheckpoint = (database: BetterSqlite3.Database) =>
  database.pragma('wal_autocheckpoint', { simple: true }) as number;
const until = async (check: () => boolean, what: string) => {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('SqliteCheckpointer', () => {
  it('moves checkpoints to its thread: the writer stops checkpointing, the file still gets the pages', async () => {
    const { file, database } = open();
    const checkpointer = new SqliteCheckpointer(database, file, { intervalMs: 10 });
    checkpointer.start();
    await until(() => autocheckpoint(database) === 0, 'the thread to be ready');
    // A WAL the writer's catch-up lets grow (65,536 frames of 4 KiB pages and their 24-byte
    // headers) is not truncated when it starts over: that truncation stalled the event loop.
    expect(database.pragma('journal_size_limit', { simple: true })).toBeGreaterThan(
      65_536 * (4096 + 24),
    );
    const before = statSync(file).size;
    const insert = database.prepare('INSERT INTO t (data) VALUES (?)');
    for (let i = 0; i < 3000; i++) insert.run('x'.repeat(200));
    // Nothing in this thread checkpoints now: only the background thread copies pages over.
    await until(() => statSync(file).size > before + 3000 * 200, 'the pages to reach the file');
    await checkpointer.stop();
    expect(autocheckpoint(database)).toBe(1000);
    expect(database.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 3000 });
    database.close();
  });

  it('catches up itself when the WAL keeps growing, so the WAL starts over', async () => {
    const { file, database } = open();
    const checkpointer = new SqliteCheckpointer(database, file, {
      intervalMs: 20,
      catchUpFrames: 20,
    });
    checkpointer.start();
    await until(() => autocheckpoint(database) === 0, 'the thread to be ready');
    const insert = database.prepare('INSERT INTO t (data) VALUES (?)');
    const wal = `${file}-wal`;
    let largest = 0;
    // Writes never pause long enough for the thread alone to finish with the last commit.
    for (let round = 0; round < 200; round++) {
      for (let i = 0; i < 20; i++) insert.run('y'.repeat(500));
      largest = Math.max(largest, statSync(wal).size);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    // Each of the 4,000 commits appends at least one 4 KiB page: a WAL that never started over
    // would pass 16 MB.
    expect(largest).toBeLessThan(8_000_000);
    await checkpointer.stop();
    database.close();
  });

  it('gives the checkpoints back to the writer when its thread cannot work', async () => {
    const { database } = open();
    const checkpointer = new SqliteCheckpointer(database, join(tmpdir(), 'no-such-dir', 'x.db'));
    database.pragma('wal_autocheckpoint = 0');
    checkpointer.start();
    await until(() => autocheckpoint(database) === 1000, 'automatic checkpoints to come back');
    await checkpointer.stop();
    database.close();
  });
});
