/**
 * Status of an execution (docs/design.md#executions). Async records start `pending` (or `waiting`, when
 * something must happen before they may run: an approval, docs/workflow-language.md#authorization), then `running`, and
 * end `completed`, `failed` or `canceled`. A running execution may go back to `waiting` (a step
 * that waits for an event) and from there to `pending` again when it is resumed.
 */
export type ExecutionStatus =
  'pending' | 'waiting' | 'running' | 'completed' | 'failed' | 'canceled';

/** The statuses an execution ends with. */
export type FinishedStatus = 'completed' | 'failed' | 'canceled';

/** Every status, in the order an execution goes through them. */
export const EXECUTION_STATUSES: readonly ExecutionStatus[] = [
  'pending',
  'waiting',
  'running',
  'completed',
  'failed',
  'canceled',
];

/** Statuses an execution never leaves. */
export const FINISHED_STATUSES: ReadonlySet<ExecutionStatus> = new Set<FinishedStatus>([
  'completed',
  'failed',
  'canceled',
]);

/** Statuses of executions that have not ended yet (the others of {@link EXECUTION_STATUSES}). */
export const UNFINISHED_STATUSES: ReadonlySet<ExecutionStatus> = new Set<ExecutionStatus>([
  'pending',
  'waiting',
  'running',
]);

/**
 * Statuses a worker may claim an execution in: `pending`, and `running` once its lease expired
 * (its server died). A `waiting` execution is never claimed: it is resumed (back to `pending`)
 * or ended.
 */
export const CLAIMABLE_STATUSES: ReadonlySet<ExecutionStatus> = new Set<ExecutionStatus>([
  'pending',
  'running',
]);

/** True for a status an execution never leaves (any string: records read from the wire too). */
export function isFinishedStatus(status: string): status is FinishedStatus {
  return (FINISHED_STATUSES as ReadonlySet<string>).has(status);
}
