import {
  CanceledError,
  WeftError,
  type ActionCall,
  type InvocationResult,
  type InvocationUsage,
  type StreamEvent,
  type StreamEventType,
} from '@weft/core';
import type { Scope } from '@weft/expr';
import { setMaxListeners } from 'node:events';
import type { WorkflowDefinition } from '../model.js';
import type { AgentCall, ToolApprovalGate } from './agent-call.js';
import { AttemptTools } from './attempt-tools.js';
import { invokerOf } from './chain.js';
import { isoOf } from './iso.js';
import { Deadlines } from './deadlines.js';
import { InFlight } from './in-flight.js';
import type { Invocation, RunInfo } from './interceptors.js';
import type { CompiledRunOptions } from './options.js';
import { planRetry, type RetryPlan, type StepPlan, type WorkflowPlan } from './plan.js';
import type { JournaledStep } from './records.js';
import type { ResolvedSecrets } from './secrets.js';
import { StepContext, type SharedContext } from './step-context.js';
import { abortOf, type StepScope } from './step-scope.js';

/** What the scope holds for a finished step: read as `steps.<id>.output` and friends. */
export interface StepEntry {
  status: 'success' | 'failed' | 'skipped' | 'canceled';
  output?: unknown;
  outputs?: Record<string, unknown>;
  error?: unknown;
  [child: string]: unknown;
}

/** What a step counts while it runs: its attempts and the usage its invocations reported. */
export interface StepTally {
  attempts: number;
  usage: InvocationUsage | undefined;
  /** The input it was given, secrets masked (a list of them for `for_each`); see `StepRecord`. */
  input?: unknown;
  /**
   * Each action attempt's span (ms by the run's clock), its `for_each` item and error code, kept
   * when events are.
   */
  attemptLog?: { startedMs: number; finishedMs: number; item?: number; code?: string }[];
}

/** The internal record of a step, turned into a `StepRecord` when the run ends. */
export interface InternalRecord extends StepTally {
  entry: StepEntry;
  startedMs: number;
  finishedMs: number;
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
  /** Attempts in flight, with their deadlines. */
  readonly attempts: Deadlines<InFlight>;
  /** Steps inside the step hooks of the chain (only when it has some). */
  readonly scopes: Map<StepPlan, StepScope> | undefined;
  /** Steps an interceptor aborted, with the reason (created on the first abort). */
  aborted: Map<StepPlan, WeftError> | undefined;
  private canceledAt: string | undefined;
  /** Aborted by {@link cancel}; made at the first retry delay (see {@link cancelSignal}). */
  private cancelController: AbortController | undefined;
  /** The workflows on the call chain of this run, outermost first, this run's own last. */
  readonly lineage: readonly WorkflowDefinition[];
  /** Retry policy of steps that set none. */
  readonly defaultRetry: RetryPlan | undefined;
  private readonly onAbort = () => this.cancel();

  constructor(
    readonly plan: WorkflowPlan,
    readonly options: CompiledRunOptions,
    readonly inputs: Record<string, unknown>,
    readonly secrets: ResolvedSecrets,
    readonly depth: number,
    /** Who this run is, for interceptors (undefined without a chain). */
    readonly info: RunInfo | undefined,
  ) {
    this.attempts = new Deadlines(options.clock);
    // The interceptors' RunInfo holds the same chain; build it once.
    this.lineage = info?.workflows ?? [...options.callers, plan.workflow];
    this.scopes = options.chain?.step ? new Map() : undefined;
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
      previousSteps: steps,
      progress: (step, percent, message) => this.emit('step.progress', step, { percent, message }),
      addSecret: (name, value) => secrets.add(name, value),
    };
    if (options.signal?.aborted) this.cancel();
    else options.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /** Now, in ms since the epoch, by the run's clock. */
  now(): number {
    return this.options.clock.now();
  }

  /** True when events are listened to (building them is skipped otherwise). */
  get listening(): boolean {
    return this.options.onEvent !== undefined || this.options.observe !== undefined;
  }

  /** The cancellation error once the run is canceled. */
  get canceled(): CanceledError | undefined {
    return this.canceledAt === undefined
      ? undefined
      : new CanceledError('the execution was canceled', { canceled_at: this.canceledAt });
  }

  /** Emits an event (docs/protocol.md#stream-events) (secret values masked). */
  emit(type: StreamEventType, stepName: string, data: Record<string, unknown>): void {
    const { onEvent, observe } = this.options;
    if (!onEvent && !observe) return;
    const event: StreamEvent = {
      type,
      timestamp: isoOf(this.options.clock.now()),
      workflow_id: this.options.executionId,
      step_name: stepName,
      data: this.secrets.mask(data),
    };
    observe?.(event);
    onEvent?.(event);
  }

  /**
   * One action attempt (number `attemptNumber` of item `item`): invokes the action with its own
   * context, through the chain's invocation hooks, and rejects with `TIMEOUT` when it outlives
   * `timeoutMs` or `CANCELED` when the run is canceled (the handler's signal fires either way).
   * Errors other than `WeftError` become `BACKEND_ERROR`.
   */
  attempt(
    plan: StepPlan,
    input: Record<string, unknown>,
    key: string,
    timeoutMs: number,
    attemptNumber: number,
    item: number | undefined,
  ): Promise<InvocationResult> {
    const stopped = this.canceled ?? (this.aborted && abortOf(this, plan));
    if (stopped) return Promise.reject(stopped);
    const context = new StepContext(this.shared, plan.path, key);
    const agent = plan.def.type === 'agent';
    const action = agent ? 'run' : plan.def.action!;
    // An action step's runtime block reaches the invoker (agent steps refuse one).
    const runtime = agent ? undefined : plan.def.runtime;
    const call: ActionCall | Invocation = this.options.chain?.invoke
      ? {
          target: plan.target!,
          action,
          input,
          context,
          ...(runtime ? { runtime } : {}),
          step: plan.info,
          run: this.info!,
          attempt: attemptNumber,
          item,
        }
      : { target: plan.target!, action, input, context, ...(runtime ? { runtime } : {}) };
    if (agent) {
      // An agent step's invoker gets an AgentCall: the definition, its tools, progress reports.
      // Its `run` is the interceptors' RunInfo (which has the owner and the call chain's
      // workflows), the same object as its other invocations'.
      const extras: Omit<AgentCall, keyof ActionCall> = {
        definition: plan.def,
        run: this.info ?? { owner: this.options.owner, workflows: this.lineage },
        tools: new AttemptTools(this, plan, context, key, attemptNumber, item),
        report: (percent, message, data) => {
          if (this.listening) this.emit('step.progress', plan.path, { percent, message, ...data });
        },
        approvals: this.maskedApprovals(),
      };
      Object.assign(call, extras);
    }
    return this.track(plan, call, context, timeoutMs);
  }

  /** The run's tool approval gate, shown arguments masked (undefined: none). */
  private maskedApprovals(): ToolApprovalGate | undefined {
    const gate = this.options.toolApprovals;
    if (!gate) return undefined;
    return {
      saved: (key) => gate.saved(key),
      decide: (request, state) =>
        gate.decide({ ...request, arguments: this.secrets.mask(request.arguments) }, state),
    };
  }

  /**
   * Sends one call through the chain's invocation hooks to its invoker, with a deadline and
   * cancellation: rejects with `TIMEOUT` when it outlives `timeoutMs`, `CANCELED` when the run is
   * canceled (the context's signal fires either way). Errors other than `WeftError` become
   * `BACKEND_ERROR`. Used by action and agent attempts and by agents' tool calls.
   */
  track(
    plan: StepPlan,
    call: ActionCall | Invocation,
    context: StepContext,
    timeoutMs: number,
  ): Promise<InvocationResult> {
    const chain = this.options.chain?.invoke;
    const attempt = new InFlight(this, plan, call, context, this.options.clock.now(), timeoutMs);
    const settled = new Promise<InvocationResult>((resolve, reject) => {
      attempt.resolve = resolve;
      attempt.reject = reject;
    });
    this.attempts.add(attempt);
    let pending: Promise<InvocationResult>;
    try {
      pending = chain
        ? chain(call as Invocation)
        : invokerOf(this.options, plan.info, call).invoke(call as unknown as AgentCall);
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending.then(
      (value) => attempt.end(value),
      (error: unknown) => attempt.fail(error),
    );
    return settled;
  }

  /**
   * Takes a step back from the journal of an earlier attempt, with its parallel children: their
   * records are restored as they were. Undefined when the step is not journaled.
   */
  restore(plan: StepPlan): StepEntry | undefined {
    const journaled = this.options.journal?.get(plan.path);
    if (!journaled) return undefined;
    const entry = journaled.entry;
    this.records.set(plan.name, {
      entry,
      attempts: journaled.attempts,
      usage: journaled.usage,
      startedMs: journaled.started_ms,
      finishedMs: journaled.finished_ms,
      ...(journaled.input !== undefined ? { input: journaled.input } : {}),
    });
    for (const child of plan.children) {
      if (this.restore(child)) continue;
      const childEntry = (entry[child.name] as StepEntry | undefined) ?? { status: 'skipped' };
      this.records.set(child.name, {
        entry: childEntry,
        attempts: 0,
        usage: undefined,
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
    // The journal is stored: secret values are masked there too (a resumed run reads `***`
    // where the first attempt read a secret value that came back in an output).
    const step: JournaledStep = {
      path: plan.path,
      entry: this.secrets.mask(record.entry),
      attempts: record.attempts,
      started_ms: record.startedMs,
      finished_ms: record.finishedMs,
    };
    if (record.usage) step.usage = record.usage;
    if (record.input !== undefined) step.input = this.secrets.mask(record.input);
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

  /** Cancels the run: every in-flight attempt is aborted with `CANCELED`, every retry delay ended. */
  cancel(): void {
    if (this.canceledAt !== undefined) return;
    this.canceledAt = new Date(this.options.clock.now()).toISOString();
    const error = this.canceled!;
    for (const attempt of this.attempts.clear()) attempt.cancel(error);
    this.cancelController?.abort(error);
  }

  /**
   * Aborted when the run is canceled, whatever cancels it: what retry delays wait on. Each delay
   * adds a listener, and a parallel `for_each` may have hundreds waiting at once: on the
   * caller's signal that many listeners made Node warn of a leak, so they go on this run's own
   * signal, whose listener count is not capped.
   */
  get cancelSignal(): AbortSignal {
    if (!this.cancelController) {
      this.cancelController = new AbortController();
      setMaxListeners(0, this.cancelController.signal);
      if (this.canceledAt !== undefined) this.cancelController.abort(this.canceled);
    }
    return this.cancelController.signal;
  }

  /** Releases the timer and the abort listener. */
  close(): void {
    this.attempts.clear();
    this.options.signal?.removeEventListener('abort', this.onAbort);
  }
}
