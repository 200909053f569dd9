import type { ErrorObject } from '../errors/codec.js';
import type { WaitingFor } from './execution.js';
import type { ExecutionStatus, FinishedStatus } from './status.js';
import type { CredentialKind } from '../identity/principal.js';

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

/** The principal that started an execution, as stored with it (no admin flag, no key). */
export interface StartedBy {
  kind: CredentialKind;
  subject: string;
  name: string;
  roles: readonly string[];
  permissions: readonly string[];
}

/**
 * The W3C trace context an execution's runs belong to (docs/observability.md#across-processes):
 * the `traceparent` (and `tracestate`) of its first run span, so that a run resumed elsewhere or
 * later (a lease taken over, an approval) makes its span a child of it, in the same trace.
 */
export interface TraceContext {
  traceparent: string;
  tracestate?: string;
}

/** An execution as a store keeps it (JSON columns already parsed). */
export interface StoredExecution {
  id: string;
  /** Owner of the key (or deployment) that started it: only this owner can see it. */
  owner: string;
  /** The API key that started it; null for trigger-started executions. */
  key_id: string | null;
  /**
   * Who started it, as checked then (docs/authorization.md#checks): the caller, or for a run of
   * a trigger the deployer. Its roles and permissions are what step checks read, on any server
   * and after a resume. Absent for executions stored before it was recorded.
   */
  started_by?: StartedBy;
  workflow: string;
  workflow_version: string;
  /** Execution mode it runs in (`cloud`). */
  mode: string;
  status: ExecutionStatus;
  /**
   * What it waits for, set when it began to wait and kept after (while `status` is `waiting`,
   * what it waits for now). Absent when it never waited.
   */
  waiting_for?: WaitingFor;
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
  /** The trace its runs belong to; absent when it was started untraced. */
  trace_context?: TraceContext;
  /**
   * The execution and step it resumes (a rerun `from` a step): the steps before that one were
   * taken from that execution's journal. Absent for every other execution.
   */
  resumed_from?: ResumedFrom;
}

/** Where a resumed execution took its first steps from (`resumed_from` on its record). */
export interface ResumedFrom {
  /** The execution whose journal gave the steps before `step`. */
  execution_id: string;
  /** The first step that ran again. */
  step: string;
}

/** A journaled step: its path and its JSON (the engine's `JournaledStep`), serialized once. */
export interface JournalRow {
  path: string;
  json: string;
}

/** A stored event (docs/protocol.md#stream-events): its sequence number within the execution and its JSON. */
export interface EventRow {
  seq: number;
  type: string;
  json: string;
}

/** How an execution ended. */
export interface ExecutionOutcome {
  status: FinishedStatus;
  finished_at: string;
  canceled_at: string | null;
  result: { outputs: Record<string, unknown>; steps: Record<string, unknown> };
  error: ErrorObject | null;
  callback: CallbackState | null;
}

/** Filters of a listing, already validated. */
export interface ExecutionQuery {
  /** Only this owner's executions; undefined: every owner's (admins, approvers). */
  owner: string | undefined;
  status?: ExecutionStatus;
  workflow?: string;
  /** Only executions started by this trigger type (`api`, `schedule`, …). */
  trigger?: string;
  /** Only executions created at or after this ISO 8601 UTC time. */
  from?: string;
  /** Only executions created before this ISO 8601 UTC time. */
  to?: string;
  limit: number;
  /** Position after which the page starts (from the previous page). */
  after?: { created_at: string; id: string };
}

/** What {@link ExecutionsStore.stats} counts: executions created in [since, until). */
export interface ExecutionStatsQuery {
  /** Only this owner's executions; undefined: every owner's (admin keys). */
  owner: string | undefined;
  /** ISO 8601 UTC, inclusive. */
  since: string;
  /** ISO 8601 UTC, exclusive. */
  until: string;
}

/** Counts and durations of the executions created in a time range. */
export interface ExecutionStats {
  /** Executions by the UTC hour they were created in (`2026-01-01T13`) and status. */
  hours: { hour: string; status: ExecutionStatus; count: number }[];
  /**
   * Per workflow, of its ended executions that started: how many, and the nearest-rank 50th and
   * 95th percentiles of their duration (started to finished) in ms.
   */
  workflows: { workflow: string; count: number; p50_ms: number; p95_ms: number }[];
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
