import type { StoredExecution } from '@weft/core';
import { ActionProxy, type ActionRequest } from './actions/action-proxy.js';
import { CallbackEgress } from './callbacks/egress.js';
import { CallbackSender } from './callbacks/deliver.js';
import type { TraceCarrier } from '@weft/telemetry';
import { cancelExecution } from './executions/end-stored.js';
import type { ExecutionRequest } from './executions/new-start.js';
import { ExecutionQueries } from './executions/queries.js';
import {
  ExecutionStarter,
  type PreparedExecutions,
  type StartedExecution,
} from './executions/starter.js';
import { ExecutionWorker } from './executions/worker.js';
import {
  compileRuntimeOptions,
  type CompiledRuntimeOptions,
  type RuntimeOptions,
} from './options.js';
import type { RuntimeParts } from './runtime-parts.js';
import { auditExpiry } from './authorization/approvals.js';
import { WaitDeadlines } from './waits/deadlines.js';
import { RetentionSweeper } from './retention/sweeper.js';
import {
  WaitDecisions,
  type WaitDecision,
  type WaitRejection,
  type WaitResume,
} from './waits/decisions.js';

export type { ActionRequest } from './actions/action-proxy.js';
export type { ExecutionRequest } from './executions/new-start.js';
export { fingerprintOf } from './executions/new-start.js';
export { isFinished } from './executions/queries.js';
export type { PreparedExecutions, StartedExecution } from './executions/starter.js';

/**
 * The runtime (docs/design.md#executions, docs/design.md#scale-out): starts executions, runs them durably (journal, leases,
 * resume), lets them wait (for an approval) and decides their waits, cancels them, and delivers
 * their callbacks. This class is the facade over its services (`executions/`, `waits/`,
 * `actions/`); HTTP routes are in `http/`.
 */
export class Runtime {
  readonly options: CompiledRuntimeOptions;
  readonly worker: ExecutionWorker;
  readonly egress: CallbackEgress;
  readonly callbacks: CallbackSender;
  /** The timer of the waits' deadlines (one per runtime). */
  readonly deadlines: WaitDeadlines;
  private readonly parts: RuntimeParts;
  private readonly starter: ExecutionStarter;
  private readonly queries: ExecutionQueries;
  private readonly decisions: WaitDecisions;
  private readonly actions: ActionProxy;
  /** Deletes what is past its retention (docs/runtime.md#retention). */
  readonly retention: RetentionSweeper;
  private started = false;

  constructor(options: RuntimeOptions) {
    this.options = compileRuntimeOptions(options);
    this.egress = new CallbackEgress(this.options.egressAllowlist, this.options.lookup);
    this.callbacks = new CallbackSender(this.options, this.egress);
    this.worker = new ExecutionWorker(this.options, (execution, trace) =>
      this.ended(execution, trace),
    );
    const parts: RuntimeParts = {
      options: this.options,
      worker: this.worker,
      egress: this.egress,
      ended: (execution) => this.ended(execution),
    };
    this.parts = parts;
    this.queries = new ExecutionQueries(parts);
    this.deadlines = new WaitDeadlines(this.options, async (id, now) => {
      const expired = await this.decisions.expire(id, now);
      if (expired) await auditExpiry(this.options.audit, expired);
      return expired !== undefined;
    });
    this.decisions = new WaitDecisions(parts, (deadline) => this.deadlines.decided(deadline));
    this.worker.onWait = (deadline) => this.deadlines.note(deadline);
    this.starter = new ExecutionStarter(parts, (deadline) => this.deadlines.note(deadline));
    this.actions = new ActionProxy(this.options);
    this.retention = new RetentionSweeper(this.options.retention, {
      executions: this.options.store,
      audit: this.options.audit.store,
      clock: this.options.clock,
      metrics: this.options.metrics,
      onError: this.options.onError,
    });
  }

  /**
   * Resumes unfinished executions and pending callbacks, arms the timer of the waits'
   * deadlines from the store, then keeps looking for work.
   */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.worker.start();
    await this.deadlines.start();
    this.retention.start();
    for (const id of await this.options.store.pendingCallbacks(1000)) {
      const execution = await this.options.store.get(id);
      if (execution) this.callbacks.send(execution);
    }
  }

  /**
   * Detaches running executions (they resume at the next start), stops the deadline timer
   * (waits keep their deadlines in the store) and callbacks.
   */
  async close(): Promise<void> {
    await this.retention.close();
    await this.deadlines.close();
    await this.worker.close();
    await this.callbacks.close();
  }

  /**
   * Starts an execution of a validated workflow: checks inputs, action targets, the callback
   * URL and `wait` (throwing `VALIDATION`, nothing stored), stores it `pending` and runs it
   * here, or with `wait`, stores it `waiting` (see {@link resumeExecution}). The webhooks and
   * event triggers start their runs through this too.
   */
  startExecution(request: ExecutionRequest): Promise<StartedExecution> {
    return this.starter.start(request);
  }

  /**
   * Checks many requests (each as {@link startExecution} checks one, failing alone) and builds
   * their records, so that `commit()`, at the instant they are due (a schedule's fires), only
   * stores them: in one go (one commit on SQLite), stamped with the commit's time. Their runs
   * begin after `commit()` has answered, so the last record is not held up by the first runs.
   * Commit soon: a record's lease on this worker counts from the preparation.
   */
  prepareExecutions(requests: readonly ExecutionRequest[]): Promise<PreparedExecutions> {
    return this.starter.prepare(requests);
  }

  /** {@link prepareExecutions} and its commit at once. */
  async startExecutions(
    requests: readonly ExecutionRequest[],
  ): Promise<PromiseSettledResult<StartedExecution>[]> {
    return (await this.prepareExecutions(requests)).commit();
  }

  /**
   * An execution of `owner` (undefined: of any owner, for admin keys); `NOT_FOUND` for unknown
   * ids and other owners' executions alike.
   */
  get(id: string, owner: string | undefined): Promise<StoredExecution> {
    return this.queries.get(id, owner);
  }

  /**
   * Waits up to `ms` for execution `id` to end; gives it as it is then. Woken by this process's
   * writes, polling the store every second for executions running elsewhere.
   */
  waitFor(id: string, owner: string, ms: number, signal?: AbortSignal): Promise<StoredExecution> {
    return this.queries.waitFor(id, owner, ms, signal);
  }

  /**
   * Cancels an execution of `owner`: a run here is aborted (its in-flight actions get their
   * signal) and ends `canceled`; a pending or waiting one, or one running on another server, is
   * ended `canceled` in the store (the other server notices at its next lease renewal). An
   * ended execution is answered as it is.
   */
  cancel(id: string, owner: string): Promise<StoredExecution> {
    return cancelExecution(this.parts, this.queries, id, owner);
  }

  /**
   * Lets a `waiting` execution run: it becomes `pending` (with a `<kind>.granted` event of
   * `decision.data`) and whichever replica claims it (this one tries first) runs it from its
   * journal. `won: false` when it did not wait (for `decision.kind`) any more: another decision,
   * a cancel or its deadline came first (answer `409 CONFLICT`). `NOT_FOUND` for an unknown id
   * (or, with `decision.owner`, another owner's execution).
   */
  resumeExecution(id: string, decision?: WaitResume): Promise<WaitDecision> {
    return this.decisions.resume(id, decision);
  }

  /**
   * Ends a `waiting` execution `canceled` (a rejection): `CANCELED` error with `canceled_at`
   * and `rejection.details`, a `<kind>.rejected` event, its callback. `won` and `NOT_FOUND` as
   * for {@link resumeExecution}.
   */
  endWaiting(id: string, rejection?: WaitRejection): Promise<WaitDecision> {
    return this.decisions.reject(id, rejection);
  }

  /**
   * Runs one action for a caller (`POST /actions/execute`, the cloud steps of hybrid runs) with
   * the server's invoker and a context (docs/protocol.md#execution-context) of its own; counts it in the key's usage. A `version`
   * makes the target `connector` reference `<plugin>@<version>`.
   */
  executeAction(call: ActionRequest): Promise<unknown> {
    return this.actions.execute(call);
  }

  /** Tells `onEnded`, and sends the callback of an ended execution (its usage was written with its end). */
  private ended(execution: StoredExecution, trace?: TraceCarrier): void {
    this.options.onEnded?.(execution);
    if (execution.callback_url && execution.callback?.status === 'pending') {
      this.callbacks.send(execution, trace);
    }
  }
}
