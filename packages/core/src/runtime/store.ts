import type { WaitingFor } from './execution.js';
import type {
  CallbackAttempt,
  CallbackState,
  EndWrites,
  EventRow,
  ExecutionLease,
  ExecutionOutcome,
  ExecutionQuery,
  ExecutionStats,
  ExecutionStatsQuery,
  IdempotencyClaim,
  JournalRow,
  StoredExecution,
  UsageDelta,
  UsageRow,
} from './records.js';

/** Which ended executions {@link ExecutionsStore.deleteEnded} deletes. */
export interface EndedQuery {
  /** Those that finished before this instant (ISO 8601 UTC). */
  before: string;
  /** Only the executions of this workflow of this owner. */
  only?: { owner: string; workflow: string };
  /** Never the executions of these workflows of these owners (they have retention of their own). */
  except?: readonly { owner: string; workflow: string }[];
  limit: number;
}

/** What {@link ExecutionsStore.deleteEnded} deleted. */
export interface DeletedExecutions {
  executions: number;
  /** Journaled steps. */
  steps: number;
  events: number;
}

/** What {@link ExecutionsStore.create} did. */
export type CreateOutcome =
  | { created: true; execution: StoredExecution }
  | { created: false; execution: StoredExecution; fingerprint: string };

/**
 * Storage port of the runtime (docs/design.md#scale-out): execution records, their journal of finished steps,
 * their events for replay, idempotency keys, callback attempts and usage. Executions are claimed
 * with leases so that several servers can share one database.
 */
export interface ExecutionsStore {
  /** `sqlite` or `postgres`. */
  readonly kind: string;
  /**
   * Stores a new execution (pending, running under `lease`, or `waiting` for its
   * `waiting_for`, whose `expires_at` is its deadline) with its first `events` and, for an
   * execution resumed from another's journal (`resumed_from`), its first journaled `steps`,
   * atomically: whoever claims it finds them; with `idempotency`, returns the execution already
   * created under the same key instead (and the fingerprint it was created with).
   * `durableAtEnd` (a run here whose caller waits for its end): its commit need not wait for
   * the disk; the synchronous commit of its end (or {@link flush}) makes it durable, before
   * anyone is answered with it.
   */
  create(
    execution: StoredExecution,
    idempotency?: IdempotencyClaim,
    lease?: ExecutionLease,
    events?: readonly EventRow[],
    steps?: readonly JournalRow[],
    durableAtEnd?: boolean,
  ): Promise<CreateOutcome>;
  /**
   * Makes every write committed so far durable (PostgreSQL: one synchronous commit; the others
   * commit durably already).
   */
  flush?(): Promise<void>;
  get(id: string): Promise<StoredExecution | undefined>;
  /** One page of an owner's executions, newest first. */
  list(query: ExecutionQuery): Promise<StoredExecution[]>;
  /** Executions per hour and status, and duration percentiles per workflow, of a time range. */
  stats(query: ExecutionStatsQuery): Promise<ExecutionStats>;
  /**
   * Makes `worker` run the execution until `leaseUntil` (ms): succeeds when it is pending, or
   * running with a lease that expired before `now`. Sets `started_at` when not yet set.
   */
  claim(
    id: string,
    worker: string,
    now: number,
    leaseUntil: number,
    startedAt: string,
  ): Promise<StoredExecution | undefined>;
  /**
   * Ids of claimable executions (pending, or running with a lease that expired before `now`;
   * never waiting ones), oldest first.
   */
  claimable(now: number, limit: number): Promise<string[]>;
  /**
   * Expires at once the leases of running executions held by an earlier worker of `replica`
   * (a holder {@link replicaWorkerId} made for it) other than `current`: a replica started again
   * under its id knows its old process is gone, so the runs it held need not wait out their
   * leases. Returns how many it released.
   */
  releaseReplicaLeases(replica: string, current: string): Promise<number>;
  /**
   * How many executions wait to be claimed at `now` (what {@link claimable} would list without a
   * limit): the runtime's queue depth.
   */
  claimableCount(now: number): Promise<number>;
  /** Extends the leases `worker` holds; returns the ids it no longer holds (finished or lost). */
  renew(worker: string, ids: readonly string[], leaseUntil: number): Promise<string[]>;
  /** Appends finished steps and events atomically. */
  journal(id: string, steps: readonly JournalRow[], events: readonly EventRow[]): Promise<void>;
  /** The journaled steps of an execution. */
  steps(id: string): Promise<JournalRow[]>;
  /** Events with a sequence number above `afterSeq`, in order, at most `limit`. */
  events(id: string, afterSeq: number, limit: number): Promise<EventRow[]>;
  /** Highest event sequence number of an execution (0 when none). */
  lastEventSeq(id: string): Promise<number>;
  /**
   * Ends an unfinished (pending, waiting or running) execution with `outcome` and writes `writes` with it, atomically; false
   * (and nothing written) when it had already ended.
   */
  finish(id: string, outcome: ExecutionOutcome, writes: EndWrites): Promise<boolean>;
  /**
   * Makes a `waiting` execution `pending` again (claimable: whoever claims it runs it from its
   * journal) and appends `events`, atomically; false (nothing written) when it was not waiting
   * any more. Of two concurrent calls, one wins. With `waitingFor`, its `waiting_for` becomes
   * that in the same write (the decision a tool call's wait resumes with).
   */
  resume(id: string, events: readonly EventRow[], waitingFor?: WaitingFor): Promise<boolean>;
  /**
   * Suspends a running execution that `worker` holds: `waiting` for `waitingFor`, its lease
   * given up, `events` appended; false (nothing written) when the worker does not hold it.
   */
  suspend(
    id: string,
    worker: string,
    waitingFor: WaitingFor,
    events: readonly EventRow[],
  ): Promise<boolean>;
  /**
   * Ends a `waiting` execution (rejected, expired) as {@link finish} ends one, but only while
   * it waits, and with `expiredBy` (ms) only when its deadline is not after it; false (nothing
   * written) otherwise. Of two concurrent ends (or an end and a {@link resume}), one wins.
   */
  endWaiting(
    id: string,
    outcome: ExecutionOutcome,
    writes: EndWrites,
    expiredBy?: number,
  ): Promise<boolean>;
  /** The earliest deadline (ms) of the waiting executions; undefined when none has one. */
  nextWaitDeadline(): Promise<number | undefined>;
  /** Ids of the waiting executions whose deadline is not after `now`, earliest first. */
  expiredWaits(now: number, limit: number): Promise<string[]>;
  /** Records one callback attempt and the new delivery state. */
  recordCallback(id: string, attempt: CallbackAttempt, state: CallbackState): Promise<void>;
  callbackAttempts(id: string): Promise<CallbackAttempt[]>;
  /** Ids of finished executions whose callback is still pending. */
  pendingCallbacks(limit: number): Promise<string[]>;
  /** Adds to a key's usage on a UTC day (`YYYY-MM-DD`). */
  addUsage(keyId: string, owner: string, date: string, delta: UsageDelta): Promise<void>;
  /** Usage of every key of an owner since `sinceDate`, by key and day. */
  usage(owner: string, sinceDate: string): Promise<UsageRow[]>;
  /** The callback signing secret of a key, made with `generate` on first use. */
  signingSecret(keyId: string, generate: () => string): Promise<string>;
  /**
   * Deletes up to `query.limit` ended executions (completed, failed, canceled) that finished
   * before `query.before`, oldest first, with their journal, events, callback attempts and
   * idempotency keys, in one short transaction (retention). Answers what it deleted; fewer
   * executions than `limit` means none is left to delete.
   */
  deleteEnded(query: EndedQuery): Promise<DeletedExecutions>;
  /** Closes what this store opened. */
  close(): Promise<void>;
}

/** Length of the per-process part of a {@link replicaWorkerId} (a UUID). */
export const WORKER_INCARNATION_LENGTH = 36;

/**
 * The lease holder of one process of replica `replica`: `<replica>#<incarnation>`, where the
 * incarnation is a UUID new in every process ({@link WORKER_INCARNATION_LENGTH} characters), so
 * that {@link ExecutionsStore.releaseReplicaLeases} finds the holders of earlier processes.
 */
export function replicaWorkerId(replica: string, incarnation: string): string {
  if (incarnation.length !== WORKER_INCARNATION_LENGTH) {
    throw new Error(`a worker incarnation is ${WORKER_INCARNATION_LENGTH} characters (a UUID)`);
  }
  return `${replica}#${incarnation}`;
}
