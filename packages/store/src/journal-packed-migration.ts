import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from './database.js';

/**
 * SQLite: the journal's two tables become `execution_journal`, one row per write with its
 * steps and events packed (see `journal-tables.ts`), keyed by a rowid (appends fill the last
 * page of the table) and found by `(execution_id, last_seq)`. A journaled step wrote about five
 * WAL frames across the two tables and their page splits; it now writes two or three. The rows
 * kept are copied a step or an event per row, JSON put on one line where it was not. PostgreSQL
 * packs its two tables in 0035 ({@link postgresJournalPackedMigration}).
 */
export function journalPackedMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect !== 'sqlite') return;
      await sql`CREATE TABLE execution_journal (
        id INTEGER PRIMARY KEY,
        execution_id TEXT NOT NULL,
        last_seq INTEGER NOT NULL,
        steps TEXT,
        events TEXT
      )`.execute(db);
      const line = (column: string) =>
        sql.raw(`CASE WHEN instr(${column}, char(10)) > 0 THEN json(${column}) ELSE ${column} END`);
      await sql`INSERT INTO execution_journal (execution_id, last_seq, steps, events)
        SELECT execution_id, 0, json_array(path) || char(10) || ${line('data')}, NULL
        FROM execution_steps ORDER BY execution_id, path`.execute(db);
      await sql`INSERT INTO execution_journal (execution_id, last_seq, steps, events)
        SELECT execution_id, seq, NULL,
          json_array(json_array(seq, type)) || char(10) || ${line('data')}
        FROM execution_events ORDER BY execution_id, seq`.execute(db);
      await sql`CREATE INDEX execution_journal_seq ON execution_journal (execution_id, last_seq)`.execute(
        db,
      );
      await sql`DROP TABLE execution_steps`.execute(db);
      await sql`DROP TABLE execution_events`.execute(db);
    },
  };
}

/**
 * PostgreSQL: the same packing as {@link journalPackedMigration} (`execution_journal`, a row per
 * write, keyed by an identity and found by `(execution_id, last_seq)`). A journaled step was
 * three rows in two tables, each row a heap tuple and an index entry (six write-ahead log
 * records), in one statement of two inserts; it is now one row and two index entries. Per
 * statement, interleaved on one connection: PostgreSQL's CPU ~218 → ~168 µs, the same as a
 * one-row insert into a table of its own. The rows kept are copied a step or an event per row,
 * JSON put on one line where it was not (through `jsonb`). One transaction, like every
 * migration on PostgreSQL.
 */
export function postgresJournalPackedMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect !== 'postgres') return;
      await sql`CREATE TABLE execution_journal (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        execution_id text NOT NULL,
        last_seq integer NOT NULL,
        steps text,
        events text
      )`.execute(db);
      const line = sql.raw(
        `CASE WHEN strpos(data, chr(10)) > 0 THEN data::jsonb::text ELSE data END`,
      );
      await sql`INSERT INTO execution_journal (execution_id, last_seq, steps, events)
        SELECT execution_id, 0, json_build_array(path)::text || chr(10) || ${line}, NULL
        FROM execution_steps ORDER BY execution_id, path`.execute(db);
      await sql`INSERT INTO execution_journal (execution_id, last_seq, steps, events)
        SELECT execution_id, seq, NULL,
          json_build_array(json_build_array(seq, type))::text || chr(10) || ${line}
        FROM execution_events ORDER BY execution_id, seq`.execute(db);
      await sql`CREATE INDEX execution_journal_seq ON execution_journal (execution_id, last_seq)`.execute(
        db,
      );
      await sql`DROP TABLE execution_steps`.execute(db);
      await sql`DROP TABLE execution_events`.execute(db);
    },
  };
}
