import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** How many distinct SQL texts keep their prepared statement (least recently used go first). */
export const STATEMENT_CACHE_SIZE = 512;

/**
 * The database Kysely's SQLite dialect is given: the same connection, but `prepare` keeps the
 * statements it made by SQL text. Kysely prepares every query again on every call, which on a
 * short write costs as much as running it; the queries weft builds are a few hundred texts with
 * their values as parameters, so a bounded cache keeps every hot one. A statement still iterating
 * (`busy`) is never handed out twice: that call gets a fresh one.
 */
export function cachingStatements(
  database: BetterSqlite3.Database,
  size = STATEMENT_CACHE_SIZE,
): SqliteDatabase {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => {
      statements.clear();
      database.close();
    },
    prepare: (sql: string): SqliteStatement => {
      const cached = statements.get(sql);
      if (cached && !cached.busy) {
        // Re-insert to mark it the most recently used.
        statements.delete(sql);
        statements.set(sql, cached);
        return cached;
      }
      const statement = database.prepare(sql);
      if (cached) return statement;
      statements.set(sql, statement);
      if (statements.size > size) statements.delete(statements.keys().next().value!);
      return statement;
    },
  };
}
