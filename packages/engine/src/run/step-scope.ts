import { fromErrorObject, type InvocationUsage, type WeftError } from '@weft/core';
import type { StepTerminal } from './chain.js';
import type { RunInfo, StepInfo, StepOutcome } from './interceptors.js';
import type { StepPlan } from './plan.js';
import type { InternalRecord, Run, StepEntry } from './run.js';

/** Runs the step itself (condition already passed): the step chain's terminal. */
export type StepExecutor = (run: Run, plan: StepPlan, record: InternalRecord) => Promise<StepEntry>;

/**
 * One step inside the chain's step hooks: the {@link StepCall} the hooks get, and the end of
 * the chain, which runs the step. A parallel block that fails is a rejection here (its error is
 * the failed child's), and its entry, children included, is kept for the record.
 */
export class StepScope implements StepTerminal {
  private reason: WeftError | undefined;
  private controller: AbortController | undefined;
  private settled = false;
  /** The entry the step produced (success, or a failed parallel block). */
  private produced: StepEntry | undefined;
  /** The rejection that stands for the failed block {@link produced}. */
  private blockFailure: WeftError | undefined;

  constructor(
    private readonly target: Run,
    private readonly plan: StepPlan,
    private readonly record: InternalRecord,
    private readonly executor: StepExecutor,
  ) {}

  get step(): StepInfo {
    return this.plan.info;
  }
  get run(): RunInfo {
    return this.target.info!;
  }
  get startedMs(): number {
    return this.record.startedMs;
  }
  get attempts(): number {
    return this.record.attempts;
  }
  get usage(): InvocationUsage | undefined {
    return this.record.usage;
  }

  /** Aborted with the reason given to {@link abort}; created on first use. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.reason) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason: WeftError): void {
    if (this.settled || this.reason) return;
    this.reason = reason;
    const run = this.target;
    (run.aborted ??= new Map()).set(this.plan, reason);
    this.controller?.abort(reason);
    for (const attempt of run.attempts.snapshot()) {
      if (!within(attempt.plan, this.plan)) continue;
      run.attempts.delete(attempt);
      attempt.cancel(reason);
    }
  }

  async proceed(): Promise<StepOutcome> {
    let entry: StepEntry;
    try {
      entry = await this.executor(this.target, this.plan, this.record);
    } catch (error) {
      throw this.reason ?? error;
    }
    if (this.reason) throw this.reason;
    this.produced = entry;
    if (entry.status === 'failed' || entry.status === 'canceled') {
      this.blockFailure = fromErrorObject(entry.error);
      throw this.blockFailure;
    }
    return entry;
  }

  /** Runs the step through the chain's step hooks; resolves to its entry (see runStep). */
  async intercept(hooks: (call: StepScope) => Promise<StepOutcome>): Promise<StepEntry> {
    const scopes = this.target.scopes!;
    scopes.set(this.plan, this);
    try {
      const outcome = await hooks(this);
      if (outcome === this.produced) return this.produced;
      const entry = { ...outcome, status: 'success' } as StepEntry;
      if (entry.output === undefined && entry.outputs === undefined) entry.output = null;
      return entry;
    } catch (error) {
      if (error === this.blockFailure && this.produced) return this.produced;
      throw error;
    } finally {
      // An abort reason stays: work the hooks left running must not start anything new.
      this.settled = true;
      scopes.delete(this.plan);
    }
  }
}

/** True when `plan` is `scope` or sits inside it (a child of a parallel block). */
function within(plan: StepPlan | undefined, scope: StepPlan): boolean {
  for (; plan; plan = plan.parent) if (plan === scope) return true;
  return false;
}

/** The reason an interceptor aborted `plan` or a block holding it; undefined when none did. */
export function abortOf(run: Run, plan: StepPlan): WeftError | undefined {
  const aborted = run.aborted;
  if (!aborted || aborted.size === 0) return undefined;
  for (let p: StepPlan | undefined = plan; p; p = p.parent) {
    const reason = aborted.get(p);
    if (reason) return reason;
  }
  return undefined;
}

/**
 * The signals that stop work of `plan` when an interceptor aborts it or a block holding it:
 * empty without step hooks. Used for waits that are not attempts (retry delays, subworkflows).
 */
export function abortSignals(run: Run, plan: StepPlan): AbortSignal[] {
  const scopes = run.scopes;
  if (!scopes || scopes.size === 0) return [];
  const signals: AbortSignal[] = [];
  for (let p: StepPlan | undefined = plan; p; p = p.parent) {
    const scope = scopes.get(p);
    if (scope) signals.push(scope.signal);
  }
  return signals;
}
