import type { Selectable } from 'kysely';
import type {
  ExecutionLease,
  ExecutionStatus,
  ResumedFrom,
  StartedBy,
  StoredExecution,
  TraceContext,
  WaitingFor,
} from '@weft/core';
import type { ExecutionsTable } from './executions-tables.js';

/** Columns of `executions` the store reads back (the lease stays inside the store). */
export const EXECUTION_COLUMNS = [
  'id',
  'owner',
  'key_id',
  'workflow',
  'workflow_version',
  'mode',
  'status',
  'definition',
  'inputs',
  'trigger',
  'callback_url',
  'created_at',
  'started_at',
  'finished_at',
  'canceled_at',
  'result',
  'error',
  'callback',
  'waiting_for',
  'started_by',
  'trace_context',
  'resumed_from',
] as const;

type ExecutionRow = Pick<Selectable<ExecutionsTable>, (typeof EXECUTION_COLUMNS)[number]>;

/** A row of `executions` as the port's record. */
export function toStoredExecution(row: ExecutionRow): StoredExecution {
  return {
    id: row.id,
    owner: row.owner,
    key_id: row.key_id,
    workflow: row.workflow,
    workflow_version: row.workflow_version,
    mode: row.mode,
    status: row.status as StoredExecution['status'],
    definition: JSON.parse(row.definition) as StoredExecution['definition'],
    inputs: JSON.parse(row.inputs) as StoredExecution['inputs'],
    trigger: JSON.parse(row.trigger) as StoredExecution['trigger'],
    callback_url: row.callback_url,
    created_at: row.created_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
    canceled_at: row.canceled_at,
    result: parseOrNull(row.result),
    error: parseOrNull(row.error),
    callback: parseOrNull(row.callback),
    ...(row.waiting_for !== null ? { waiting_for: JSON.parse(row.waiting_for) as WaitingFor } : {}),
    ...(row.started_by !== null ? { started_by: JSON.parse(row.started_by) as StartedBy } : {}),
    ...(row.trace_context !== null
      ? { trace_context: JSON.parse(row.trace_context) as TraceContext }
      : {}),
    ...(row.resumed_from !== null
      ? { resumed_from: JSON.parse(row.resumed_from) as ResumedFrom }
      : {}),
  };
}

/** The row to insert for a new execution (held by `lease` when its creator runs it at once). */
export function toExecutionRow(
  execution: StoredExecution,
  lease?: ExecutionLease,
): Selectable<ExecutionsTable> {
  return {
    id: execution.id,
    owner: execution.owner,
    key_id: execution.key_id,
    workflow: execution.workflow,
    workflow_version: execution.workflow_version,
    mode: execution.mode,
    status: execution.status,
    definition: JSON.stringify(execution.definition),
    inputs: JSON.stringify(execution.inputs),
    trigger: JSON.stringify(execution.trigger),
    trigger_type: execution.trigger.type,
    callback_url: execution.callback_url,
    created_at: execution.created_at,
    started_at: execution.started_at,
    finished_at: execution.finished_at,
    canceled_at: execution.canceled_at,
    result: stringifyOrNull(execution.result),
    error: stringifyOrNull(execution.error),
    callback: stringifyOrNull(execution.callback),
    lease_owner: lease?.worker ?? null,
    lease_until: lease?.until ?? 0,
    waiting_for: stringifyOrNull(execution.waiting_for),
    wait_until: deadlineOf(execution.waiting_for),
    started_by: stringifyOrNull(execution.started_by),
    trace_context: stringifyOrNull(execution.trace_context),
    resumed_from: stringifyOrNull(execution.resumed_from),
  };
}

/** The deadline of a wait in epoch ms, as `wait_until` keeps it; null without one. */
export function deadlineOf(waitingFor: WaitingFor | undefined): number | null {
  const expires = waitingFor?.expires_at;
  if (expires === undefined || expires === null) return null;
  const ms = Date.parse(expires);
  if (!Number.isFinite(ms)) throw new Error(`waiting_for.expires_at is not a date: ${expires}`);
  return ms;
}

/**
 * A status set of core as an SQL list of literals, `('pending', 'running')`, for statements
 * whose text is fixed (prepared once). Statuses are plain words: nothing needs quoting.
 */
export function statusList(statuses: ReadonlySet<ExecutionStatus>): string {
  return `(${[...statuses].map((status) => `'${status}'`).join(', ')})`;
}

/** JSON text of a value, or null. */
export function stringifyOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

function parseOrNull<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}
