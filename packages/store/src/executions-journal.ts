import type { Selectable } from 'kysely';
import type { EndWrites, EventRow, ExecutionOutcome, JournalRow } from '@weft/core';
import { EXECUTION_COLUMNS, stringifyOrNull } from './executions-rows.js';
import type { ExecutionsTable } from './executions-tables.js';

/**
 * The hot path of the executions store: journaling finished steps with their events, and
 * ending an execution (with its usage). One transaction (SQLite) or one statement (PostgreSQL)
 * per call: `SqliteJournalWriter`, `PostgresJournalWriter`.
 */
export interface JournalWriter {
  /**
   * Inserts a new execution's row; `relaxed`: with the journal's commit, which need not wait for
   * the disk (the run's end flushes it).
   */
  insert(row: ExecutionRowValues, relaxed?: boolean): Promise<void>;
  /** Makes every commit so far durable. */
  flush(): Promise<void>;
  journal(id: string, steps: readonly JournalRow[], events: readonly EventRow[]): Promise<void>;
  finish(id: string, outcome: ExecutionOutcome, writes: EndWrites): Promise<boolean>;
  /** {@link finish} of a waiting execution only (see `ExecutionsStore.endWaiting`). */
  endWaiting(
    id: string,
    outcome: ExecutionOutcome,
    writes: EndWrites,
    expiredBy: number | undefined,
  ): Promise<boolean>;
}

/** The columns of a new execution's row. */
export type ExecutionRowValues = Selectable<ExecutionsTable>;
/**
 * The columns the writers' inserts set, in order: those of a new execution that does not wait
 * (a waiting one is stored by the store's `create` itself).
 */
export const ROW_COLUMNS = [
  ...EXECUTION_COLUMNS.filter((column) => column !== 'waiting_for'),
  'trigger_type',
  'lease_owner',
  'lease_until',
] as const;
/** The values of {@link ROW_COLUMNS} of a row, in order. */
export const rowValues = (row: ExecutionRowValues): unknown[] => ROW_COLUMNS.map((c) => row[c]);

/**
 * The values that end an execution, in the order the writers' ends set them (status,
 * finished_at, canceled_at, result, error, callback).
 */
export const endValues = (outcome: ExecutionOutcome): unknown[] => [
  outcome.status,
  outcome.finished_at,
  outcome.canceled_at,
  JSON.stringify(outcome.result),
  stringifyOrNull(outcome.error),
  stringifyOrNull(outcome.callback),
];
