import type { Generated } from 'kysely';

/** `executions`: one row per execution; JSON columns are text. */
export interface ExecutionsTable {
  id: string;
  owner: string;
  key_id: string | null;
  workflow: string;
  workflow_version: string;
  mode: string;
  status: string;
  definition: string;
  inputs: string;
  trigger: string;
  callback_url: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  canceled_at: string | null;
  result: string | null;
  error: string | null;
  callback: string | null;
  lease_owner: string | null;
  /** Epoch ms; 0 when never claimed. */
  lease_until: number;
  /** JSON of what it waits for (`WaitingFor`); kept once it waited (migration 0008). */
  waiting_for: string | null;
  /** Deadline of its last wait, epoch ms (null: none); read only while it is `waiting`. */
  wait_until: number | null;
  /** JSON of who started it (`StartedBy`, migration 0011); null before it was recorded. */
  started_by: string | null;
  /** JSON of the trace its runs belong to (`TraceContext`, migration 0014); null untraced. */
  trace_context: string | null;
  /** JSON of the execution and step it resumes (`ResumedFrom`, migration 0019); null mostly. */
  resumed_from: string | null;
  /** `trigger.type`, copied out to be indexed (migration 0020); null only before it ran. */
  trigger_type: string | null;
}

/** `execution_idempotency`: idempotency keys per API key. */
export interface ExecutionIdempotencyTable {
  key_id: string;
  idempotency_key: string;
  execution_id: string;
  fingerprint: string;
  created_at: string;
}

/** `callback_attempts`: every attempt to deliver a completion callback. */
export interface CallbackAttemptsTable {
  execution_id: string;
  attempt: number;
  at: string;
  status: number | null;
  error: string | null;
  duration_ms: number;
}

/** `callback_secrets`: the Standard Webhooks signing secret of each API key. */
export interface CallbackSecretsTable {
  key_id: string;
  secret: string;
  created_at: string;
}

/**
 * `usage_days`: usage per key per UTC day, spread over a few rows (`shard`, see
 * `usage-shards-migration.ts`); a key's day is the sum of its rows.
 */
export interface UsageDaysTable {
  key_id: string;
  owner: string;
  date: string;
  shard: Generated<number>;
  executions: number;
  action_calls: number;
  duration_ms: number;
}

/**
 * `execution_journal` (SQLite since migration 0030, PostgreSQL since 0035): one row per journal
 * write, its steps and events packed (see `journal-tables.ts`). It replaced `execution_steps`
 * (a row per step) and `execution_events` (a row per event, numbered from 1 within an
 * execution: docs/protocol.md#stream-events).
 */
export interface ExecutionJournalTable {
  id: Generated<number>;
  execution_id: string;
  last_seq: number;
  steps: string | null;
  events: string | null;
}

/** The runtime's tables, merged into the store's `Database`. */
export interface ExecutionsTables {
  executions: ExecutionsTable;
  execution_journal: ExecutionJournalTable;
  execution_idempotency: ExecutionIdempotencyTable;
  callback_attempts: CallbackAttemptsTable;
  callback_secrets: CallbackSecretsTable;
  usage_days: UsageDaysTable;
}
