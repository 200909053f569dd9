import type { ErrorObject } from '../errors/codec.js';

/** Status of an execution (DESIGN.md §4): async records start `pending`, then `running`. */
export type ExecutionStatus = 'pending' | 'running' | 'completed' | 'failed' | 'canceled';

/** Statuses an execution never leaves. */
export const FINISHED_STATUSES: readonly ExecutionStatus[] = ['completed', 'failed', 'canceled'];

/** What started an execution: the API, a webhook, a schedule or an event. */
export interface ExecutionTrigger {
  /** `api`, `webhook`, `schedule`, `event`, … */
  type: string;
  /** `trigger.payload` of the templates (webhook body). */
  payload?: unknown;
  /** `trigger.event` of the templates (event trigger). */
  event?: unknown;
}

/** Delivery state of an execution's completion callback. */
export interface CallbackState {
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  /** HTTP status of the last attempt; null when it got no answer. */
  last_status: number | null;
  last_error: string | null;
  /** Stable across retries (Standard Webhooks `webhook-id`). */
  webhook_id: string;
  delivered_at: string | null;
}

/** One attempt to deliver a callback. */
export interface CallbackAttempt {
  attempt: number;
  at: string;
  status: number | null;
  error: string | null;
  duration_ms: number;
}

/** An execution as a store keeps it (JSON columns already parsed). */
export interface StoredExecution {
  id: string;
  /** Owner of the key (or deployment) that started it: only this owner can see it. */
  owner: string;
  /** The API key that started it; null for trigger-started executions. */
  key_id: string | null;
  workflow: string;
  workflow_version: string;
  /** Execution mode it runs in (`cloud`). */
  mode: string;
  status: ExecutionStatus;
  /** The workflow definition and the workflows its subworkflow steps may call (opaque JSON). */
  definition: { workflow: unknown; library: unknown[] };
  inputs: Record<string, unknown>;
  trigger: ExecutionTrigger;
  callback_url: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  canceled_at: string | null;
  result: { outputs: Record<string, unknown>; steps: Record<string, unknown> } | null;
  error: ErrorObject | null;
  callback: CallbackState | null;
}

/** A journaled step: its path and its JSON (the engine's `JournaledStep`), serialized once. */
export interface JournalRow {
  path: string;
  json: string;
}

/** A stored §2.11 event: its sequence number within the execution and its JSON. */
export interface EventRow {
  seq: number;
  type: string;
  json: string;
}

/** How an execution ended. */
export interface ExecutionOutcome {
  status: 'completed' | 'failed' | 'canceled';
  finished_at: string;
  canceled_at: string | null;
  result: { outputs: Record<string, unknown>; steps: Record<string, unknown> };
  error: ErrorObject | null;
  callback: CallbackState | null;
}

/** Filters of a listing, already validated. */
export interface ExecutionQuery {
  owner: string;
  status?: ExecutionStatus;
  workflow?: string;
  limit: number;
  /** Position after which the page starts (from the previous page). */
  after?: { created_at: string; id: string };
}

/** Usage added by one execution or action call. */
export interface UsageDelta {
  executions: number;
  action_calls: number;
  duration_ms: number;
}

/** What is written with the end of an execution, in the same transaction. */
export interface EndWrites {
  /** Its last events. */
  events: readonly EventRow[];
  /** Finished steps not journaled yet (those that finished last). */
  steps?: readonly JournalRow[];
  /** What the execution adds to its key's usage. */
  usage?: UsageEntry;
}

/** Usage to add to a key's day, written with the end of the execution it counts. */
export interface UsageEntry {
  keyId: string;
  owner: string;
  /** UTC day, `YYYY-MM-DD`. */
  date: string;
  delta: UsageDelta;
}

/**
 * The lease a new execution is stored with when its creator runs it at once: it is stored
 * `running` (its `started_at` set), held by `worker` until `until` (ms), and never claimed.
 */
export interface ExecutionLease {
  worker: string;
  until: number;
}

/** Usage of one key on one UTC day. */
export interface UsageRow extends UsageDelta {
  key_id: string;
  date: string;
}

/** An idempotency key of a creation: per API key, with a fingerprint of the request. */
export interface IdempotencyClaim {
  key_id: string;
  key: string;
  fingerprint: string;
}

/** What {@link ExecutionsStore.create} did. */
export type CreateOutcome =
  | { created: true; execution: StoredExecution }
  | { created: false; execution: StoredExecution; fingerprint: string };

/**
 * Storage port of the runtime (DESIGN.md §5): execution records, their journal of finished steps,
 * their events for replay, idempotency keys, callback attempts and usage. Executions are claimed
 * with leases so that several servers can share one database.
 */
export interface ExecutionsStore {
  /** `sqlite` or `postgres`. */
  readonly kind: string;
  /**
   * Stores a new execution (pending, or running under `lease`); with `idempotency`, returns the
   * execution already created under the same key instead (and the fingerprint it was created
   * with).
   */
  create(
    execution: StoredExecution,
    idempotency?: IdempotencyClaim,
    lease?: ExecutionLease,
  ): Promise<CreateOutcome>;
  get(id: string): Promise<StoredExecution | undefined>;
  /** One page of an owner's executions, newest first. */
  list(query: ExecutionQuery): Promise<StoredExecution[]>;
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
  /** Ids of unfinished executions whose lease expired before `now` (pending ones first). */
  claimable(now: number, limit: number): Promise<string[]>;
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
   * Ends an unfinished execution with `outcome` and writes `writes` with it, atomically; false
   * (and nothing written) when it had already ended.
   */
  finish(id: string, outcome: ExecutionOutcome, writes: EndWrites): Promise<boolean>;
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
  /** Closes what this store opened. */
  close(): Promise<void>;
}
