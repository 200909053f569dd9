import {
  BackendError,
  CanceledError,
  TimeoutError,
  WeftError,
  type ActionCall,
  type StreamEvent,
  type StreamEventType,
} from '@weft/core';
import type { Scope } from '@weft/expr';
import { Deadlines, type Deadline } from './deadlines.js';
import type { CompiledRunOptions } from './options.js';
import { planRetry, type RetryPlan, type StepPlan, type WorkflowPlan } from './plan.js';
import type { JournaledStep } from './records.js';
import type { ResolvedSecrets } from './secrets.js';
import { StepContext, type SharedContext } from './step-context.js';

/** What the scope holds for a finished step: read as `steps.<id>.output` and friends. */
export interface StepEntry {
  status: 'success' | 'failed' | 'skipped';
  output?: unknown;
  outputs?: Record<string, unknown>;
  error?: unknown;
  [child: string]: unknown;
}

/** The internal record of a step, turned into a `StepRecord` when the run ends. */
export interface InternalRecord {
  entry: StepEntry;
  attempts: number;
  startedMs: number;
  finishedMs: number;
}

interface Attempt extends Deadline {
  cancel(reason: unknown): void;
}

/**
 * The state of one run: its scope, records, in-flight attempts and event sink. Step semantics
 * live in `steps.ts`; this class owns what every step shares.
 */
export class Run {
  readonly scope: Scope & { steps: Record<string, StepEntry> };
  readonly records = new Map<string, InternalRecord>();
  /** Journal writes of finished steps still in flight. */
  private readonly journaling = new Set<Promise<void>>();
  private journalFailure: { error: unknown } | undefined;
  readonly shared: SharedContext;
  private readonly deadlines = new Deadlines();
  private readonly attempts = new Set<Attempt>();
  private canceledAt: string | undefined;
  /** Retry policy of steps that set none. */
  readonly defaultRetry: RetryPlan | undefined;
  private readonly onAbort = () => this.cancel();

  constructor(
    readonly plan: WorkflowPlan,
    readonly options: CompiledRunOptions,
    readonly inputs: Record<string, unknown>,
    readonly secrets: ResolvedSecrets,
    readonly depth: number,
  ) {
    this.defaultRetry = options.defaultRetry ? planRetry(options.defaultRetry) : undefined;
    const steps: Record<string, StepEntry> = {};
    this.scope = {
      inputs,
      env: options.environment,
      secrets: secrets.values,
      steps,
      trigger: options.trigger,
    };
    this.shared = {
      workflowId: options.executionId,
      inputs,
      executionMode: options.executionMode,
      environment: options.environment,
      secrets: secrets.values,
      previousSteps: steps as SharedContext['previousSteps'],
      progress: (step, percent, message) => this.emit('step.progress', step, { percent, message }),
    };
    if (options.signal?.aborted) this.cancel();
    else options.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /** True when events are listened to (building them is skipped otherwise). */
  get listening(): boolean {
    return this.options.onEvent !== undefined;
  }

  /** The cancellation error once the run is canceled. */
  get canceled(): CanceledError | undefined {
    return this.canceledAt === undefined
      ? undefined
      : new CanceledError('the execution was canceled', { canceled_at: this.canceledAt });
  }

  /** Emits a §2.11 event (secret values masked). */
  emit(type: StreamEventType, stepName: string, data: Record<string, unknown>): void {
    const sink = this.options.onEvent;
    if (!sink) return;
    const event: StreamEvent = {
      type,
      timestamp: new Date().toISOString(),
      workflow_id: this.options.executionId,
      step_name: stepName,
      data: this.secrets.mask(data),
    };
    sink(event);
  }

  /**
   * One action attempt: invokes the action with its own context, and rejects with `TIMEOUT`
   * when it outlives `timeoutMs` or `CANCELED` when the run is canceled (the handler's signal
   * fires either way). Errors other than `WeftError` become `BACKEND_ERROR`.
   */
  attempt(
    plan: StepPlan,
    input: Record<string, unknown>,
    key: string,
    timeoutMs: number,
  ): Promise<unknown> {
    const canceled = this.canceled;
    if (canceled) return Promise.reject(canceled);
    const context = new StepContext(this.shared, plan.path, key);
    const agent = plan.def.type === 'agent';
    const call: ActionCall = {
      target: plan.target!,
      action: agent ? 'run' : plan.def.action!,
      input,
      context,
    };
    const started = Date.now();
    return new Promise((resolve, reject) => {
      const attempt: Attempt = {
        deadline: started + timeoutMs,
        expire: () => {
          this.attempts.delete(attempt);
          const elapsed = Date.now() - started;
          const error = new TimeoutError(`step "${plan.path}" timed out after ${timeoutMs} ms`, {
            timeout_ms: timeoutMs,
            elapsed_ms: elapsed,
          });
          context.abort(error);
          reject(error);
        },
        cancel: (reason) => {
          this.deadlines.delete(attempt);
          context.abort(reason);
          reject(reason);
        },
      };
      this.deadlines.add(attempt);
      this.attempts.add(attempt);
      const settle = () => {
        this.deadlines.delete(attempt);
        this.attempts.delete(attempt);
      };
      let pending: Promise<unknown>;
      try {
        const invoker = agent
          ? this.options.agents!
          : (this.options.invokerFor?.(plan.def) ?? this.options.invoker);
        pending = invoker.invoke(call);
      } catch (error) {
        pending = Promise.reject(error);
      }
      pending.then(
        (value) => {
          settle();
          resolve(value);
        },
        (error: unknown) => {
          settle();
          reject(asActionError(error, call));
        },
      );
    });
  }

  /**
   * Takes a step back from the journal of an earlier attempt, with its parallel children: their
   * records are restored as they were. Undefined when the step is not journaled.
   */
  restore(plan: StepPlan): StepEntry | undefined {
    const journaled = this.options.journal?.get(plan.path);
    if (!journaled) return undefined;
    const entry = journaled.entry as StepEntry;
    this.records.set(plan.name, {
      entry,
      attempts: journaled.attempts,
      startedMs: journaled.started_ms,
      finishedMs: journaled.finished_ms,
    });
    for (const child of plan.children) {
      if (this.restore(child)) continue;
      const childEntry = (entry[child.name] as StepEntry | undefined) ?? { status: 'skipped' };
      this.records.set(child.name, {
        entry: childEntry,
        attempts: 0,
        startedMs: journaled.started_ms,
        finishedMs: journaled.finished_ms,
      });
    }
    return entry;
  }

  /**
   * Reports a finished step to the durability hook. Its promise is awaited by {@link durable},
   * before the next step starts and before the run ends.
   */
  journal(plan: StepPlan, record: InternalRecord): void {
    const hook = this.options.onStepFinished;
    if (!hook) return;
    const step: JournaledStep = {
      path: plan.path,
      entry: record.entry,
      attempts: record.attempts,
      started_ms: record.startedMs,
      finished_ms: record.finishedMs,
    };
    let journaling: void | Promise<void>;
    try {
      journaling = hook(step);
    } catch (error) {
      this.journalFailure ??= { error };
      return;
    }
    if (!journaling) return;
    const pending: Promise<void> = journaling.then(
      () => void this.journaling.delete(pending),
      (error: unknown) => {
        this.journaling.delete(pending);
        this.journalFailure ??= { error };
      },
    );
    this.journaling.add(pending);
  }

  /** True while a finished step is not yet journaled, or journaling one failed. */
  get journalPending(): boolean {
    return this.journaling.size > 0 || this.journalFailure !== undefined;
  }

  /**
   * Resolves once every finished step is journaled; rejects with the first journaling failure
   * (which fails the run).
   */
  async durable(): Promise<void> {
    while (this.journaling.size > 0) await Promise.all(this.journaling);
    if (this.journalFailure) throw this.journalFailure.error;
  }

  /** Cancels the run: every in-flight attempt is aborted with `CANCELED`. */
  cancel(): void {
    if (this.canceledAt !== undefined) return;
    this.canceledAt = new Date().toISOString();
    const error = this.canceled!;
    for (const attempt of [...this.attempts]) attempt.cancel(error);
    this.attempts.clear();
  }

  /** Releases the timer and the abort listener. */
  close(): void {
    this.deadlines.close();
    this.options.signal?.removeEventListener('abort', this.onAbort);
  }
}

/** Keeps a `WeftError`; reports anything else a handler threw as `BACKEND_ERROR`. */
export function asActionError(error: unknown, call: Pick<ActionCall, 'target'>): WeftError {
  if (error instanceof WeftError) return error;
  const backend = call.target.kind === 'plugin' ? call.target.slug : call.target.ref;
  const message = error instanceof Error ? error.message : String(error);
  return new BackendError(
    `${backend} failed: ${message}`,
    { backend, original_error: message },
    { cause: error },
  );
}
