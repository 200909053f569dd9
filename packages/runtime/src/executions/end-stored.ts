import {
  CanceledError,
  toErrorObject,
  type EventRow,
  type ExecutionOutcome,
  type FinishedStatus,
  type StoredExecution,
  type UsageEntry,
  type WeftError,
} from '@weft/core';
import type { RuntimeParts } from '../runtime-parts.js';
import { isFinished, type ExecutionQueries } from './queries.js';
import { pendingCallback } from './record.js';
import { usageOf } from './run-claimed.js';

/** How {@link endStored} ends an execution. */
export interface StoredEnd {
  status: Exclude<FinishedStatus, 'completed'>;
  error: WeftError;
  /** When it ends (ms). */
  at: number;
  /** Events before its `workflow.completed` (a `<kind>.rejected`), numbered from `seq`. */
  events?: (seq: number) => EventRow[];
  /**
   * Only while it waits (a rejection), and with `expiredBy` only once its deadline is not after
   * it (an expiry). Without: any unfinished execution (a cancel).
   */
  waiting?: { expiredBy?: number };
}

/**
 * Ends an execution that does not run in this process (canceled while pending or running
 * elsewhere, rejected or expired while waiting) in the store, with its last events (a
 * `workflow.completed`), its usage and its callback; wakes its waiters. False when it was not
 * in a state to end so (another end, or a resume, came first).
 */
export async function endStored(
  parts: RuntimeParts,
  execution: StoredExecution,
  end: StoredEnd,
): Promise<boolean> {
  const { store } = parts.options;
  const { id } = execution;
  const at = new Date(end.at).toISOString();
  const error = toErrorObject(end.error);
  const seq = (await store.lastEventSeq(id)) + 1;
  const before = end.events?.(seq) ?? [];
  const completed = {
    type: 'workflow.completed',
    timestamp: at,
    workflow_id: id,
    step_name: '',
    data: { status: end.status, outputs: {}, error, duration_ms: 0 },
  };
  const outcome: ExecutionOutcome = {
    status: end.status,
    finished_at: at,
    canceled_at: end.status === 'canceled' ? at : null,
    result: { outputs: {}, steps: {} },
    error,
    callback: execution.callback_url ? pendingCallback(id) : null,
  };
  const writes = {
    events: [
      ...before,
      { seq: seq + before.length, type: completed.type, json: JSON.stringify(completed) },
    ],
    usage: usageUntilEnd(execution, outcome),
  };
  const ended = end.waiting
    ? await store.endWaiting(id, outcome, writes, end.waiting.expiredBy)
    : await store.finish(id, outcome, writes);
  parts.worker.hub.notify(id);
  if (ended) parts.ended({ ...execution, ...outcome });
  return ended;
}

/** Usage of an execution ended in the store: the time it waited does not count. */
function usageUntilEnd(execution: StoredExecution, outcome: ExecutionOutcome): UsageEntry {
  const usage = usageOf(execution, outcome, 0);
  if (execution.status !== 'waiting' || !execution.waiting_for) return usage;
  const since = Date.parse(execution.waiting_for.since);
  const started = Date.parse(execution.started_at ?? execution.waiting_for.since);
  const ran = since - started;
  usage.delta.duration_ms = Number.isFinite(ran) ? Math.max(0, ran) : 0;
  return usage;
}

/**
 * Cancels an execution of `owner`: a run here is aborted (its in-flight actions get their
 * signal) and ends `canceled`; a pending or waiting one, or one running on another server, is
 * ended `canceled` in the store (the other server notices at its next lease renewal; a waiting
 * one never runs). An ended execution is answered as it is.
 */
export async function cancelExecution(
  parts: RuntimeParts,
  queries: ExecutionQueries,
  id: string,
  owner: string,
): Promise<StoredExecution> {
  const execution = await queries.get(id, owner);
  if (isFinished(execution)) return execution;
  const local = parts.worker.running(id);
  if (local) {
    local.cancel();
    await local.done;
    return queries.get(id, owner);
  }
  const now = parts.options.clock.now();
  const at = new Date(now).toISOString();
  await endStored(parts, execution, {
    status: 'canceled',
    error: new CanceledError('the execution was canceled', { canceled_at: at }),
    at: now,
  });
  return queries.get(id, owner);
}
