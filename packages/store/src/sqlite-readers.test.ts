import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from './open.js';
import { registryStoreContract } from './registry-store.contract.js';
import { SqliteReaders } from './sqlite-readers.js';

const directories: string[] = [];
function directory(): string {
  const made = mkdtempSync(join(tmpdir(), 'weft-readers-'));
  directories.push(made);
  return made;
}
afterEach(() => {
  for (const made of directories.splice(0)) rmSync(made, { recursive: true, force: true });
});

describe('SQLite store with reader threads', () => {
  registryStoreContract(async () => {
    const dataDir = directory();
    const { registry } = await openStore({ kind: 'sqlite', dataDir, readers: 2 });
    return { store: registry, dispose: () => registry.close() };
  });
});

describe('SqliteReaders', () => {
  function writer(): { file: string; database: BetterSqlite3.Database } {
    const file = join(directory(), 'weft.db');
    const database = new BetterSqlite3(file);
    database.pragma('journal_mode = WAL');
    database.exec('CREATE TABLE t (id integer PRIMARY KEY, name text, bytes blob)');
    return { file, database };
  }

  it('reads what was committed, never a transaction under way', async () => {
    const { file, database } = writer();
    const readers = new SqliteReaders(file, 2);
    try {
      database.exec(`INSERT INTO t (id, name) VALUES (1, 'one')`);
      expect(await readers.all('SELECT name FROM t ORDER BY id', [])).toEqual([{ name: 'one' }]);
      database.exec(`BEGIN; INSERT INTO t (id, name) VALUES (2, 'two')`);
      expect(await readers.all('SELECT name FROM t WHERE id >= ?', [1])).toEqual([{ name: 'one' }]);
      database.exec('COMMIT');
      expect(await readers.all('SELECT name FROM t WHERE id >= ?', [1])).toEqual([
        { name: 'one' },
        { name: 'two' },
      ]);
    } finally {
      await readers.close();
      database.close();
    }
  });

  it('answers many reads at once, each with its own rows', async () => {
    const { file, database } = writer();
    const insert = database.prepare('INSERT INTO t (id, name) VALUES (?, ?)');
    for (let i = 0; i < 50; i++) insert.run(i, `n${i}`);
    const readers = new SqliteReaders(file, 3);
    try {
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => readers.all('SELECT name FROM t WHERE id = ?', [i])),
      );
      expect(answers).toEqual(Array.from({ length: 50 }, (_, i) => [{ name: `n${i}` }]));
    } finally {
      await readers.close();
      database.close();
    }
  });

  it('gives BLOBs as Buffers and errors with their SQLite code', async () => {
    const { file, database } = writer();
    database.prepare('INSERT INTO t (id, bytes) VALUES (1, ?)').run(Buffer.from('abc'));
    const readers = new SqliteReaders(file, 1);
    try {
      const [row] = await readers.all('SELECT bytes FROM t', []);
      expect(Buffer.isBuffer(row!['bytes'])).toBe(true);
      expect(String(row!['bytes'])).toBe('abc');
      await expect(readers.all('SELECT nope FROM t', [])).rejects.toMatchObject({
        message: expect.stringContaining('no such column') as unknown,
        code: 'SQLITE_ERROR',
      });
      await expect(readers.all('DELETE FROM t RETURNING id', [])).rejects.toMatchObject({
        code: 'SQLITE_READONLY',
      });
      expect(database.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 1 });
    } finally {
      await readers.close();
      database.close();
    }
  });

  it('refuses reads once closed, so the store reads on its own connection', async () => {
    const { file, database } = writer();
    const readers = new SqliteReaders(file, 1);
    expect(readers.available).toBe(true);
    await readers.close();
    expect(readers.available).toBe(false);
    await expect(readers.all('SELECT 1', [])).rejects.toThrow(/closed/);
    database.close();
  });
});
