import type pg from 'pg';
import { openPgPool } from './pg-pool.js';
import {
  UNFINISHED_STATUSES,
  type EndWrites,
  type EventRow,
  type ExecutionOutcome,
  type JournalRow,
} from '@weft/core';
import {
  endValues,
  ROW_COLUMNS,
  rowValues,
  type ExecutionRowValues,
  type JournalWriter,
} from './executions-journal.js';
import { statusList } from './executions-rows.js';
import { packedValues } from './journal-tables.js';
import { USAGE_SHARDS } from './usage-shards-migration.js';

const INSERT_TEXT = `INSERT INTO executions (${ROW_COLUMNS.join(', ')})
  VALUES (${ROW_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`;

/** A journal write: one packed row of `execution_journal` (see `journal-tables.ts`). */
const JOURNAL_TEXT = `INSERT INTO execution_journal (execution_id, last_seq, steps, events)
  VALUES ($1, $2, $3, $4)`;

/**
 * PostgreSQL: an end of an execution, for those whose row also matches `condition`. Its usage
 * goes to a random shard of the key's day: ends of one key would otherwise wait for each other's
 * commit on one row (see `usage-shards-migration.ts`).
 */
const endText = (condition: string): string => `WITH u AS (
    UPDATE executions SET status = $2, finished_at = $3, canceled_at = $4, result = $5,
      error = $6, callback = $7, lease_owner = NULL
    WHERE id = $1 AND ${condition}
    RETURNING id
  ), j AS (
    INSERT INTO execution_journal (execution_id, last_seq, steps, events)
    SELECT u.id, $8::integer, $9::text, $10::text FROM u
    WHERE $9::text IS NOT NULL OR $10::text IS NOT NULL
  ), g AS (
    INSERT INTO usage_days (key_id, owner, date, shard, executions, action_calls, duration_ms)
    SELECT $11, $12, $13, floor(random() * ${USAGE_SHARDS})::smallint, $14::bigint, $15::bigint,
      $16::bigint
    FROM u WHERE $17::boolean
    ON CONFLICT (key_id, date, shard) DO UPDATE SET
      executions = usage_days.executions + excluded.executions,
      action_calls = usage_days.action_calls + excluded.action_calls,
      duration_ms = usage_days.duration_ms + excluded.duration_ms
  )
  SELECT count(*) AS n FROM u`;
const FINISH_TEXT = endText(`status IN ${statusList(UNFINISHED_STATUSES)}`);
const END_WAITING_TEXT = endText(
  `status = 'waiting' AND ($18::bigint IS NULL OR wait_until <= $18::bigint)`,
);

/**
 * PostgreSQL: one statement per call (a CTE), so one round trip and one commit, run as named
 * prepared statements (planned once per connection: half the time of an unnamed CTE here). A
 * journal write is one packed row, whatever it holds.
 * The journal goes through `journal` (its own connections, see `openPostgresJournal`); the end
 * of an execution through `records`, whose synchronous commit also flushes the journal before it.
 */
export class PostgresJournalWriter implements JournalWriter {
  constructor(
    private readonly records: pg.Pool,
    private readonly journalPool: pg.Pool,
  ) {}

  async insert(row: ExecutionRowValues, relaxed = false): Promise<void> {
    await (relaxed ? this.journalPool : this.records).query({
      name: 'weft_insert_execution',
      text: INSERT_TEXT,
      values: rowValues(row),
    });
  }

  /**
   * A synchronous commit of a transaction with an id (`txid_current()` assigns one): it waits
   * for the write-ahead log to reach the disk up to it, and so for every commit before it.
   */
  async flush(): Promise<void> {
    await this.records.query('SELECT txid_current()');
  }

  async journal(
    id: string,
    steps: readonly JournalRow[],
    events: readonly EventRow[],
  ): Promise<void> {
    if (steps.length === 0 && events.length === 0) return;
    await this.journalPool.query({
      name: 'weft_journal',
      text: JOURNAL_TEXT,
      values: [id, ...packedValues(steps, events)],
    });
  }

  finish(id: string, outcome: ExecutionOutcome, writes: EndWrites): Promise<boolean> {
    return this.end('weft_finish', FINISH_TEXT, id, outcome, writes, []);
  }

  endWaiting(
    id: string,
    outcome: ExecutionOutcome,
    writes: EndWrites,
    expiredBy: number | undefined,
  ): Promise<boolean> {
    return this.end('weft_end_waiting', END_WAITING_TEXT, id, outcome, writes, [expiredBy ?? null]);
  }

  private async end(
    name: string,
    text: string,
    id: string,
    outcome: ExecutionOutcome,
    { events, steps = [], usage }: EndWrites,
    condition: unknown[],
  ): Promise<boolean> {
    const result = await this.records.query<{ n: number | string }>({
      name,
      text,
      values: [
        id,
        ...endValues(outcome),
        ...packedValues(steps, events),
        usage?.keyId ?? '',
        usage?.owner ?? '',
        usage?.date ?? '',
        usage?.delta.executions ?? 0,
        usage?.delta.action_calls ?? 0,
        usage?.delta.duration_ms ?? 0,
        usage !== undefined,
        ...condition,
      ],
    });
    return Number(result.rows[0]?.n ?? 0) > 0;
  }
}

/**
 * The connections that write the journal on PostgreSQL. With `commit: 'async'` (the default)
 * they commit with `synchronous_commit = off`: a crash of the database server or machine (not of
 * weft) may lose the last fraction of a second of journal, whose steps then run again, as the
 * step in flight does (actions are at-least-once). Execution records are always committed
 * synchronously, and ending one flushes the journal before it.
 */
export function openPostgresJournal(
  url: string,
  schema: string,
  commit: 'async' | 'sync' = 'async',
): pg.Pool {
  return openPgPool({
    url,
    max: 4,
    options: `-c search_path=${schema} -c synchronous_commit=${commit === 'async' ? 'off' : 'on'}`,
  });
}
