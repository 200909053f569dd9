import type BetterSqlite3 from 'better-sqlite3';
import type { Selectable } from 'kysely';
import type pg from 'pg';
import type { EndWrites, EventRow, ExecutionOutcome, JournalRow } from '@weft/core';
import { EXECUTION_COLUMNS, stringifyOrNull } from './executions-rows.js';
import type { ExecutionsTable } from './executions-tables.js';
import type { SqliteGroupCommit } from './sqlite-group-commit.js';

/**
 * The hot path of the executions store: journaling finished steps with their events, and
 * ending an execution (with its usage). One transaction (SQLite) or one statement (PostgreSQL)
 * per call.
 */
export interface JournalWriter {
  /** Inserts a new execution's row. */
  insert(row: ExecutionRowValues): Promise<void>;
  journal(id: string, steps: readonly JournalRow[], events: readonly EventRow[]): Promise<void>;
  finish(id: string, outcome: ExecutionOutcome, writes: EndWrites): Promise<boolean>;
}

/** The columns of a new execution's row, in the order the inserts below name them. */
export type ExecutionRowValues = Selectable<ExecutionsTable>;
const ROW_COLUMNS = [...EXECUTION_COLUMNS, 'lease_owner', 'lease_until'] as const;
const rowValues = (row: ExecutionRowValues): unknown[] => ROW_COLUMNS.map((c) => row[c]);

/** The values that end an execution, in the order the ends below set them. */
const endValues = (outcome: ExecutionOutcome): unknown[] => [
  outcome.status,
  outcome.finished_at,
  outcome.canceled_at,
  JSON.stringify(outcome.result),
  stringifyOrNull(outcome.error),
  stringifyOrNull(outcome.callback),
];

/** SQLite: adds a usage delta to a key's day. */
const ADD_USAGE = `INSERT INTO usage_days (key_id, owner, date, executions, action_calls, duration_ms)
  VALUES (?, ?, ?, ?, ?, ?)
  ON CONFLICT (key_id, date) DO UPDATE SET executions = usage_days.executions + excluded.executions,
    action_calls = usage_days.action_calls + excluded.action_calls,
    duration_ms = usage_days.duration_ms + excluded.duration_ms`;

/**
 * SQLite: prepared better-sqlite3 statements, committed in groups with the other hot writes of
 * the same turn of the event loop (see {@link SqliteGroupCommit}).
 */
export class SqliteJournalWriter implements JournalWriter {
  private readonly insertRow: BetterSqlite3.Statement;
  private readonly insertStep: BetterSqlite3.Statement;
  private readonly insertEvent: BetterSqlite3.Statement;
  private readonly end: BetterSqlite3.Statement;
  private readonly addUsage: BetterSqlite3.Statement;
  private readonly journalTx: (
    id: string,
    steps: readonly JournalRow[],
    events: readonly EventRow[],
  ) => void;
  private readonly finishTx: (id: string, outcome: ExecutionOutcome, writes: EndWrites) => boolean;

  constructor(
    database: BetterSqlite3.Database,
    private readonly group: SqliteGroupCommit,
  ) {
    this.insertStep = database.prepare(
      'INSERT OR REPLACE INTO execution_steps (execution_id, path, data) VALUES (?, ?, ?)',
    );
    this.insertEvent = database.prepare(
      'INSERT OR IGNORE INTO execution_events (execution_id, seq, type, data) VALUES (?, ?, ?, ?)',
    );
    this.end = database.prepare(
      `UPDATE executions SET status = ?, finished_at = ?, canceled_at = ?, result = ?, error = ?,
         callback = ?, lease_owner = NULL
       WHERE id = ? AND status IN ('pending', 'running')`,
    );
    this.addUsage = database.prepare(ADD_USAGE);
    this.insertRow = database.prepare(
      `INSERT INTO executions (${ROW_COLUMNS.join(', ')}) VALUES (${ROW_COLUMNS.map(() => '?').join(', ')})`,
    );
    // Plain functions: the group runs each write in a savepoint of its transaction.
    this.journalTx = (id, steps, events) => {
      for (const step of steps) this.insertStep.run(id, step.path, step.json);
      for (const event of events) this.insertEvent.run(id, event.seq, event.type, event.json);
    };
    this.finishTx = (id, outcome, { events, steps = [], usage }) => {
      const changed = this.end.run(...endValues(outcome), id).changes;
      if (changed === 0) return false;
      for (const step of steps) this.insertStep.run(id, step.path, step.json);
      for (const event of events) this.insertEvent.run(id, event.seq, event.type, event.json);
      if (usage) {
        const { keyId, owner, date, delta } = usage;
        this.addUsage.run(
          keyId,
          owner,
          date,
          delta.executions,
          delta.action_calls,
          delta.duration_ms,
        );
      }
      return true;
    };
  }

  insert(row: ExecutionRowValues): Promise<void> {
    return this.group.run(() => void this.insertRow.run(rowValues(row)));
  }

  journal(id: string, steps: readonly JournalRow[], events: readonly EventRow[]): Promise<void> {
    return this.group.run(() => this.journalTx(id, steps, events));
  }

  finish(id: string, outcome: ExecutionOutcome, writes: EndWrites): Promise<boolean> {
    return this.group.run(() => this.finishTx(id, outcome, writes));
  }
}

const INSERT_TEXT = `INSERT INTO executions (${ROW_COLUMNS.join(', ')})
  VALUES (${ROW_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`;

const JOURNAL_TEXT = `WITH s AS (
    INSERT INTO execution_steps (execution_id, path, data)
    SELECT $1, p, d FROM unnest($2::text[], $3::text[]) AS t(p, d)
    ON CONFLICT (execution_id, path) DO UPDATE SET data = excluded.data
  )
  INSERT INTO execution_events (execution_id, seq, type, data)
  SELECT $1, q, t, d FROM unnest($4::int[], $5::text[], $6::text[]) AS e(q, t, d)
  ON CONFLICT DO NOTHING`;

const FINISH_TEXT = `WITH u AS (
    UPDATE executions SET status = $2, finished_at = $3, canceled_at = $4, result = $5,
      error = $6, callback = $7, lease_owner = NULL
    WHERE id = $1 AND status IN ('pending', 'running')
    RETURNING id
  ), e AS (
    INSERT INTO execution_events (execution_id, seq, type, data)
    SELECT u.id, q, t, d FROM u, unnest($8::int[], $9::text[], $10::text[]) AS e(q, t, d)
    ON CONFLICT DO NOTHING
  ), g AS (
    INSERT INTO usage_days (key_id, owner, date, executions, action_calls, duration_ms)
    SELECT $11, $12, $13, $14::bigint, $15::bigint, $16::bigint FROM u WHERE $17::boolean
    ON CONFLICT (key_id, date) DO UPDATE SET
      executions = usage_days.executions + excluded.executions,
      action_calls = usage_days.action_calls + excluded.action_calls,
      duration_ms = usage_days.duration_ms + excluded.duration_ms
  ), s AS (
    INSERT INTO execution_steps (execution_id, path, data)
    SELECT u.id, p, d FROM u, unnest($18::text[], $19::text[]) AS t(p, d)
    ON CONFLICT (execution_id, path) DO UPDATE SET data = excluded.data
  )
  SELECT count(*) AS n FROM u`;

/**
 * PostgreSQL: one statement per call (a CTE), so one round trip and one commit, run as named
 * prepared statements (planned once per connection: half the time of an unnamed CTE here).
 * The journal goes through `journal` (its own connections, see `openPostgresJournal`); the end
 * of an execution through `records`, whose synchronous commit also flushes the journal before it.
 */
export class PostgresJournalWriter implements JournalWriter {
  constructor(
    private readonly records: pg.Pool,
    private readonly journalPool: pg.Pool,
  ) {}

  async insert(row: ExecutionRowValues): Promise<void> {
    await this.records.query({
      name: 'weft_insert_execution',
      text: INSERT_TEXT,
      values: rowValues(row),
    });
  }

  async journal(
    id: string,
    steps: readonly JournalRow[],
    events: readonly EventRow[],
  ): Promise<void> {
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

  async finish(
    id: string,
    outcome: ExecutionOutcome,
    { events, steps = [], usage }: EndWrites,
  ): Promise<boolean> {
    const result = await this.records.query<{ n: number | string }>({
      name: 'weft_finish',
      text: FINISH_TEXT,
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
      ],
    });
    return Number(result.rows[0]?.n ?? 0) > 0;
  }
}
