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
import { USAGE_SHARDS } from './usage-shards-migration.js';

const INSERT_TEXT = `INSERT INTO executions (${ROW_COLUMNS.join(', ')})
  VALUES (${ROW_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`;

/** Any number of steps and events: the rows as arrays, `unnest`ed by the server. */
const JOURNAL_TEXT = `WITH s AS (
    INSERT INTO execution_steps (execution_id, path, data)
    SELECT $1, p, d FROM unnest($2::text[], $3::text[]) AS t(p, d)
    ON CONFLICT (execution_id, path) DO UPDATE SET data = excluded.data
  )
  INSERT INTO execution_events (execution_id, seq, type, data)
  SELECT $1, q, t, d FROM unnest($4::int[], $5::text[], $6::text[]) AS e(q, t, d)
  ON CONFLICT DO NOTHING`;

/** The most steps and events of a journal write sent as plain parameters (see `shaped`). */
const SHAPED_STEPS = 2;
const SHAPED_EVENTS = 4;

/**
 * A journal write of exactly `steps` steps and `events` events, each value a parameter of its
 * own. The usual write (a step with its `step.started` and `step.completed`) costs the server
 * about a third less than the `unnest` of arrays, and the client no array literal to escape.
 */
function shapedText(steps: number, events: number): string {
  const values = (rows: number, width: number, from: number): string =>
    Array.from(
      { length: rows },
      (_, r) =>
        `($1, ${Array.from({ length: width }, (_, c) => `$${from + r * width + c}`).join(', ')})`,
    ).join(', ');
  const insertSteps = `INSERT INTO execution_steps (execution_id, path, data)
    VALUES ${values(steps, 2, 2)}
    ON CONFLICT (execution_id, path) DO UPDATE SET data = excluded.data`;
  const insertEvents = `INSERT INTO execution_events (execution_id, seq, type, data)
    VALUES ${values(events, 3, 2 + steps * 2)}
    ON CONFLICT DO NOTHING`;
  if (events === 0) return insertSteps;
  if (steps === 0) return insertEvents;
  return `WITH s AS (${insertSteps}) ${insertEvents}`;
}

/** The statement texts of {@link shapedText}, made once per shape. */
const shapedTexts = new Map<string, string>();

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
  ), e AS (
    INSERT INTO execution_events (execution_id, seq, type, data)
    SELECT u.id, q, t, d FROM u, unnest($8::int[], $9::text[], $10::text[]) AS e(q, t, d)
    ON CONFLICT DO NOTHING
  ), g AS (
    INSERT INTO usage_days (key_id, owner, date, shard, executions, action_calls, duration_ms)
    SELECT $11, $12, $13, floor(random() * ${USAGE_SHARDS})::smallint, $14::bigint, $15::bigint,
      $16::bigint
    FROM u WHERE $17::boolean
    ON CONFLICT (key_id, date, shard) DO UPDATE SET
      executions = usage_days.executions + excluded.executions,
      action_calls = usage_days.action_calls + excluded.action_calls,
      duration_ms = usage_days.duration_ms + excluded.duration_ms
  ), s AS (
    INSERT INTO execution_steps (execution_id, path, data)
    SELECT u.id, p, d FROM u, unnest($18::text[], $19::text[]) AS t(p, d)
    ON CONFLICT (execution_id, path) DO UPDATE SET data = excluded.data
  )
  SELECT count(*) AS n FROM u`;
const FINISH_TEXT = endText(`status IN ${statusList(UNFINISHED_STATUSES)}`);
const END_WAITING_TEXT = endText(
  `status = 'waiting' AND ($20::bigint IS NULL OR wait_until <= $20::bigint)`,
);

/**
 * PostgreSQL: one statement per call (a CTE), so one round trip and one commit, run as named
 * prepared statements (planned once per connection: half the time of an unnamed CTE here). A
 * journal write of a few rows has a statement of its shape; larger ones send arrays.
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
    if (steps.length <= SHAPED_STEPS && events.length <= SHAPED_EVENTS) {
      const name = `weft_journal_${steps.length}_${events.length}`;
      let text = shapedTexts.get(name);
      if (text === undefined) {
        text = shapedText(steps.length, events.length);
        shapedTexts.set(name, text);
      }
      const values: unknown[] = [id];
      for (const step of steps) values.push(step.path, step.json);
      for (const event of events) values.push(event.seq, event.type, event.json);
      await this.journalPool.query({ name, text, values });
      return;
    }
    await this.journalPool.query({
      name: 'weft_journal',
      text: JOURNAL_TEXT,
      values: [
        id,
        steps.map((s) => s.path),
        steps.map((s) => s.json),
        events.map((e) => e.seq),
        events.map((e) => e.type),
        events.map((e) => e.json),
      ],
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
        events.map((e) => e.seq),
        events.map((e) => e.type),
        events.map((e) => e.json),
        usage?.keyId ?? '',
        usage?.owner ?? '',
        usage?.date ?? '',
        usage?.delta.executions ?? 0,
        usage?.delta.action_calls ?? 0,
        usage?.delta.duration_ms ?? 0,
        usage !== undefined,
        steps.map((s) => s.path),
        steps.map((s) => s.json),
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
