import type BetterSqlite3 from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import type { EventRow, ExecutionOutcome, JournalRow } from '@weft/core';
import type { Database } from './database.js';
import { stringifyOrNull } from './executions-rows.js';

/**
 * The hot path of the executions store: journaling finished steps with their events, and
 * ending an execution. One transaction (SQLite) or one statement (PostgreSQL) per call.
 */
export interface JournalWriter {
  journal(id: string, steps: readonly JournalRow[], events: readonly EventRow[]): Promise<void>;
  finish(id: string, outcome: ExecutionOutcome, events: readonly EventRow[]): Promise<boolean>;
}

/**
 * SQLite: prepared better-sqlite3 statements in one synchronous transaction. The connection is
 * shared with Kysely, whose transactions span awaits: a write waits until none is open, so it
 * never joins (and never rolls back with) someone else's transaction.
 */
export class SqliteJournalWriter implements JournalWriter {
  private readonly insertStep: BetterSqlite3.Statement;
  private readonly insertEvent: BetterSqlite3.Statement;
  private readonly end: BetterSqlite3.Statement;
  private readonly journalTx: (
    id: string,
    steps: readonly JournalRow[],
    events: readonly EventRow[],
  ) => void;
  private readonly finishTx: (
    id: string,
    outcome: ExecutionOutcome,
    events: readonly EventRow[],
  ) => boolean;

  constructor(private readonly database: BetterSqlite3.Database) {
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
    this.journalTx = database.transaction((id, steps, events) => {
      for (const step of steps) this.insertStep.run(id, step.path, step.json);
      for (const event of events) this.insertEvent.run(id, event.seq, event.type, event.json);
    });
    this.finishTx = database.transaction((id, outcome, events) => {
      const changed = this.end.run(
        outcome.status,
        outcome.finished_at,
        outcome.canceled_at,
        JSON.stringify(outcome.result),
        stringifyOrNull(outcome.error),
        stringifyOrNull(outcome.callback),
        id,
      ).changes;
      if (changed === 0) return false;
      for (const event of events) this.insertEvent.run(id, event.seq, event.type, event.json);
      return true;
    });
  }

  async journal(
    id: string,
    steps: readonly JournalRow[],
    events: readonly EventRow[],
  ): Promise<void> {
    if (this.database.inTransaction) await this.idle();
    this.journalTx(id, steps, events);
  }

  async finish(
    id: string,
    outcome: ExecutionOutcome,
    events: readonly EventRow[],
  ): Promise<boolean> {
    if (this.database.inTransaction) await this.idle();
    return this.finishTx(id, outcome, events);
  }

  /** Resolves once no Kysely transaction is open on the shared connection. */
  private async idle(): Promise<void> {
    while (this.database.inTransaction) await new Promise((resolve) => setImmediate(resolve));
  }
}

/** PostgreSQL: one statement per call (a CTE), so one round trip and one commit. */
export class PostgresJournalWriter implements JournalWriter {
  constructor(private readonly db: Kysely<Database>) {}

  async journal(
    id: string,
    steps: readonly JournalRow[],
    events: readonly EventRow[],
  ): Promise<void> {
    await sql`WITH s AS (
        INSERT INTO execution_steps (execution_id, path, data)
        SELECT ${id}, p, d FROM unnest(${steps.map((s) => s.path)}::text[], ${steps.map((s) => s.json)}::text[]) AS t(p, d)
        ON CONFLICT (execution_id, path) DO UPDATE SET data = excluded.data
      )
      INSERT INTO execution_events (execution_id, seq, type, data)
      SELECT ${id}, q, t, d FROM unnest(${events.map((e) => e.seq)}::int[], ${events.map((e) => e.type)}::text[], ${events.map((e) => e.json)}::text[]) AS e(q, t, d)
      ON CONFLICT DO NOTHING`.execute(this.db);
  }

  async finish(
    id: string,
    outcome: ExecutionOutcome,
    events: readonly EventRow[],
  ): Promise<boolean> {
    const result = await sql<{ n: number | string }>`WITH u AS (
        UPDATE executions SET status = ${outcome.status}, finished_at = ${outcome.finished_at},
          canceled_at = ${outcome.canceled_at}, result = ${JSON.stringify(outcome.result)},
          error = ${stringifyOrNull(outcome.error)}, callback = ${stringifyOrNull(outcome.callback)},
          lease_owner = NULL
        WHERE id = ${id} AND status IN ('pending', 'running')
        RETURNING id
      ), e AS (
        INSERT INTO execution_events (execution_id, seq, type, data)
        SELECT u.id, q, t, d FROM u, unnest(${events.map((e) => e.seq)}::int[], ${events.map((e) => e.type)}::text[], ${events.map((e) => e.json)}::text[]) AS e(q, t, d)
        ON CONFLICT DO NOTHING
      )
      SELECT count(*) AS n FROM u`.execute(this.db);
    return Number(result.rows[0]?.n ?? 0) > 0;
  }
}
