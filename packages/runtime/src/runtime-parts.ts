import type { StoredExecution } from '@weft/core';
import type { CallbackEgress } from './callbacks/egress.js';
import type { ExecutionWorker } from './executions/worker.js';
import type { CompiledRuntimeOptions } from './options.js';

/**
 * What the runtime's services share (the starter, the queries, cancellation, waits): its
 * options, its worker (runs and the hub that wakes waiters), the callback egress policy, and
 * what to do when an execution ended.
 */
export interface RuntimeParts {
  readonly options: CompiledRuntimeOptions;
  readonly worker: ExecutionWorker;
  readonly egress: CallbackEgress;
  /** Sends the callback of an execution that just ended (its usage was written with its end). */
  ended(execution: StoredExecution): void;
}
