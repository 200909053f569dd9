import type { ExecutionRecord, StreamEvent } from '@weft/core';
import type { ExecutionOverride } from '../invoker/hybrid-invoker.js';

/** Options of one execution. */
export interface ExecuteOptions {
  /**
   * Receives the events (docs/protocol.md#stream-events) as they happen: those the workflow's
   * `execution.streaming` lets through (docs/workflow-language.md#streaming), none with
   * `enabled: false`. The run and its result do not depend on it.
   */
  onEvent?: (event: StreamEvent) => void;
  /**
   * Local and hybrid runs: receives every event, whatever `execution.streaming` says, for a
   * progress display or logs of the caller's own (not to pass on as the run's stream).
   */
  observe?: (event: StreamEvent) => void;
  /**
   * Whether the logger gets a line per step start and end and per workflow end (default true);
   * false when the caller shows the steps itself. The steps' own logs are kept either way.
   */
  logSteps?: boolean;
  /** Cancels the execution. */
  signal?: AbortSignal;
  /** Answer actions from `testing.dryRun.mockData` (also on when the workflow's dryRun is enabled). */
  dryRun?: boolean;
  /** Trigger data: `trigger.payload` and `trigger.event`. */
  trigger?: { payload?: unknown; event?: unknown };
  /** Id of the execution (a UUID by default; not in `cloud` mode, where the server picks it). */
  executionId?: string;
  /**
   * `hybrid` mode: where the steps of this run go, overriding their `execution` field: `local`,
   * `cloud`, `self_hosted` (the router at `routerUrl`), or a map from plugin slug to one of them.
   */
  execution?: ExecutionOverride;
  /** `cloud` mode: the same key from the same API key returns the same execution. */
  idempotencyKey?: string;
  /** `cloud` mode: receives the signed callback (docs/runtime.md#callbacks) when the execution ends. */
  callbackUrl?: string;
  /**
   * `cloud` mode: called with the pending record as soon as the server accepted the run, before
   * it ends (its `execution_id`, to follow or cancel it from elsewhere).
   */
  onStarted?: (record: ExecutionRecord) => void;
}

/** Options of {@link Weft.executeAsync}. */
export interface ExecuteAsyncOptions {
  /**
   * The same key from the same API key (outside `cloud` mode: the same client) returns the same
   * execution; with another request it is `CONFLICT`.
   */
  idempotencyKey?: string;
  /**
   * Receives the signed callback (docs/runtime.md#callbacks) when the execution ends (outside
   * `cloud` mode, signed with `Weft.callbackSecret()`).
   */
  callbackUrl?: string;
}
