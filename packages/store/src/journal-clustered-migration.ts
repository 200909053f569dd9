import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from './database.js';

/** A journal table rebuilt as a SQLite `WITHOUT ROWID` table keyed by `key`. */
interface Clustered {
  table: string;
  columns: string;
  key: string;
}

const TABLES: readonly Clustered[] = [
  {
    table: 'execution_steps',
    columns: 'execution_id TEXT NOT NULL, path TEXT NOT NULL, data TEXT NOT NULL',
    key: 'execution_id, path',
  },
  {
    table: 'execution_events',
    columns:
      'execution_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL',
    key: 'execution_id, seq',
  },
];

/**
 * SQLite: the journal's two tables become `WITHOUT ROWID` tables, the rows kept in the order of
 * their primary key. A rowid table with a composite key is two b-trees (the rows, and the index
 * of the key), so each journaled step dirtied four pages, each one a frame of the WAL written by
 * two `pwrite` calls at its commit; clustered, a step dirties two. On PostgreSQL nothing changes
 * (its heap and index are written once per commit at checkpoint time, not per commit).
 */
export function journalClusteredMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect !== 'sqlite') return;
      for (const { table, columns, key } of TABLES) {
        const next = `${table}_clustered`;
        await sql
          .raw(
            `CREATE TABLE ${next} (${columns}, CONSTRAINT ${table}_pk PRIMARY KEY (${key})) WITHOUT ROWID`,
          )
          .execute(db);
        await sql.raw(`INSERT INTO ${next} SELECT ${names(columns)} FROM ${table}`).execute(db);
        await sql.raw(`DROP TABLE ${table}`).execute(db);
        await sql.raw(`ALTER TABLE ${next} RENAME TO ${table}`).execute(db);
      }
    },
  };
}

/** The names of the columns of a column list. */
function names(columns: string): string {
  return columns
    .split(',')
    .map((column) => column.trim().split(' ')[0])
    .join(', ');
}
