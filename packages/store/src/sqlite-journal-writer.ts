import type BetterSqlite3 from 'better-sqlite3';
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
import type { SqliteGroupCommit } from './sqlite-group-commit.js';

/** One end of an execution, run inside a group commit (see `SqliteJournalWriter.endTx`). */
type EndTx = (
  id: string,
  outcome: ExecutionOutcome,
  writes: EndWrites,
  expiredBy?: number | null,
) => boolean;

/** What an end sets, for the ends below. */
const END_SET = `status = ?, finished_at = ?, canceled_at = ?, result = ?, error = ?, callback = ?,
  lease_owner = NULL`;
/** SQLite: ends an unfinished execution. */
const END = `UPDATE executions SET ${END_SET}
  WHERE id = ? AND status IN ${statusList(UNFINISHED_STATUSES)}`;
/** SQLite: ends a waiting execution (whose deadline is not after the last parameter, if any). */
const END_WAITING = `UPDATE executions SET ${END_SET}
  WHERE id = ? AND status = 'waiting' AND (? IS NULL OR wait_until <= ?)`;

/** SQLite: adds a usage delta to a key's day (shard 0: a single writer meets no lock). */
const ADD_USAGE = `INSERT INTO usage_days (key_id, owner, date, executions, action_calls, duration_ms)
  VALUES (?, ?, ?, ?, ?, ?)
  ON CONFLICT (key_id, date, shard) DO UPDATE SET executions = usage_days.executions + excluded.executions,
    action_calls = usage_days.action_calls + excluded.action_calls,
    duration_ms = usage_days.duration_ms + excluded.duration_ms`;

/**
 * SQLite: prepared better-sqlite3 statements, committed in groups with the other hot writes of
 * the same turn of the event loop (see {@link SqliteGroupCommit}).
 */
export class SqliteJournalWriter implements JournalWriter {
  private readonly insertRow: BetterSqlite3.Statement;
  private readonly insertJournal: BetterSqlite3.Statement;
  private readonly addUsage: BetterSqlite3.Statement;
  private readonly journalTx: (
    id: string,
    steps: readonly JournalRow[],
    events: readonly EventRow[],
  ) => void;
  private readonly finishTx: EndTx;
  private readonly endWaitingTx: EndTx;

  constructor(
    database: BetterSqlite3.Database,
    private readonly group: SqliteGroupCommit,
  ) {
    this.insertJournal = database.prepare(
      'INSERT INTO execution_journal (execution_id, last_seq, steps, events) VALUES (?, ?, ?, ?)',
    );
    this.addUsage = database.prepare(ADD_USAGE);
    this.insertRow = database.prepare(
      `INSERT INTO executions (${ROW_COLUMNS.join(', ')}) VALUES (${ROW_COLUMNS.map(() => '?').join(', ')})`,
    );
    // Plain functions: the group runs each write in a savepoint of its transaction.
    this.journalTx = (id, steps, events) => this.append(id, steps, events);
    this.finishTx = this.endTx(database.prepare(END));
    const endWaiting = database.prepare(END_WAITING);
    this.endWaitingTx = this.endTx(endWaiting, (expiredBy) => [expiredBy, expiredBy]);
  }

  /**
   * The write of an end with `end` (parameters: the end's values, the id, then those of
   * `condition`): nothing more is written when it changed no row.
   */
  private endTx(
    end: BetterSqlite3.Statement,
    condition: (expiredBy: number | null) => unknown[] = () => [],
  ): EndTx {
    return (id, outcome, { events, steps = [], usage }, expiredBy = null) => {
      const changed = end.run(...endValues(outcome), id, ...condition(expiredBy)).changes;
      if (changed === 0) return false;
      this.append(id, steps, events);
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

  /** One packed row of `execution_journal` (see `journal-tables.ts`); nothing when empty. */
  private append(id: string, steps: readonly JournalRow[], events: readonly EventRow[]): void {
    if (steps.length === 0 && events.length === 0) return;
    this.insertJournal.run(id, ...packedValues(steps, events));
  }

  insert(row: ExecutionRowValues): Promise<void> {
    return this.group.run(() => void this.insertRow.run(rowValues(row)));
  }

  /** Every commit is durable already (one process, WAL). */
  async flush(): Promise<void> {}

  journal(id: string, steps: readonly JournalRow[], events: readonly EventRow[]): Promise<void> {
    return this.group.run(() => this.journalTx(id, steps, events));
  }

  finish(id: string, outcome: ExecutionOutcome, writes: EndWrites): Promise<boolean> {
    return this.group.run(() => this.finishTx(id, outcome, writes));
  }

  endWaiting(
    id: string,
    outcome: ExecutionOutcome,
    writes: EndWrites,
    expiredBy: number | undefined,
  ): Promise<boolean> {
    return this.group.run(() => this.endWaitingTx(id, outcome, writes, expiredBy ?? null));
  }
}
