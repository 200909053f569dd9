import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { cachingStatements } from './sqlite-statements.js';

describe('the SQLite statement cache under Kysely', () => {
  let database: BetterSqlite3.Database;
  afterEach(() => {
    if (database.open) database.close();
  });

  it('prepares a SQL text once and hands the same statement out again', () => {
    database = new BetterSqlite3(':memory:');
    const cached = cachingStatements(database);
    const first = cached.prepare('SELECT 1 AS one');
    expect(cached.prepare('SELECT 1 AS one')).toBe(first);
    expect(first.all([])).toEqual([{ one: 1 }]);
    expect(cached.prepare('SELECT 2 AS two')).not.toBe(first);
  });

  it('gives a fresh statement while the cached one is still iterating', () => {
    database = new BetterSqlite3(':memory:');
    const cached = cachingStatements(database);
    database.exec('CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (1), (2)');
    const outer = cached.prepare('SELECT n FROM t ORDER BY n');
    const seen: unknown[] = [];
    for (const row of outer.iterate([])) {
      seen.push(row, cached.prepare('SELECT n FROM t ORDER BY n').all([]));
    }
    expect(seen).toEqual([{ n: 1 }, [{ n: 1 }, { n: 2 }], { n: 2 }, [{ n: 1 }, { n: 2 }]]);
    expect(cached.prepare('SELECT n FROM t ORDER BY n')).toBe(outer);
  });

  it('keeps at most its size, dropping the least recently used text first', () => {
    database = new BetterSqlite3(':memory:');
    const cached = cachingStatements(database, 2);
    const a = cached.prepare('SELECT 1');
    const b = cached.prepare('SELECT 2');
    expect(cached.prepare('SELECT 1')).toBe(a);
    cached.prepare('SELECT 3');
    expect(cached.prepare('SELECT 1')).toBe(a);
    expect(cached.prepare('SELECT 2')).not.toBe(b);
  });

  it('closes the connection', () => {
    database = new BetterSqlite3(':memory:');
    cachingStatements(database).close();
    expect(database.open).toBe(false);
  });
});
