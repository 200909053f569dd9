import { TimeoutError, type ActionCall, type InvocationResult } from '@weft/core';
import { asActionError, notJsonData } from './action-error.js';
import { Deadline } from './deadlines.js';
import type { Invocation } from './interceptors.js';
import { jsonDataProblem } from './json-data.js';
import type { StepPlan } from './plan.js';
import type { Run } from './run.js';
import type { StepContext } from './step-context.js';

/**
 * An invocation in flight (see {@link Run.track}): settles the attempt's promise with the first
 * of the invocation's end, its deadline and its cancellation. A class rather than closures: an
 * attempt is made for every step.
 */
export class InFlight extends Deadline {
  resolve!: (value: InvocationResult) => void;
  reject!: (reason: unknown) => void;
  readonly deadline: number;

  constructor(
    private readonly run: Run,
    readonly plan: StepPlan,
    private readonly call: ActionCall | Invocation,
    private readonly context: StepContext,
    private readonly started: number,
    private readonly timeoutMs: number,
  ) {
    super();
    this.deadline = started + timeoutMs;
  }

  /** The deadline passed (the list no longer holds it): `TIMEOUT`. */
  expire(): void {
    const elapsed = this.run.options.clock.now() - this.started;
    const error = new TimeoutError(
      `step "${this.plan.path}" timed out after ${this.timeoutMs} ms`,
      { timeout_ms: this.timeoutMs, elapsed_ms: elapsed },
    );
    this.context.abort(error);
    this.reject(error);
  }

  /** Ends the attempt with `reason` (its handler's signal fires); its list entry is the caller's. */
  cancel(reason: unknown): void {
    this.context.abort(reason);
    this.reject(reason);
  }

  /** The invocation answered (too late when the attempt already ended: then ignored). */
  end(value: InvocationResult): void {
    this.run.attempts.delete(this);
    // Checked here, once, before anything walks it (masking, events, records, storage).
    const problem = jsonDataProblem(value?.output);
    if (problem) this.reject(notJsonData(this.plan, this.call, problem));
    else this.resolve(value);
  }

  /** The invocation failed. */
  fail(error: unknown): void {
    this.run.attempts.delete(this);
    this.reject(asActionError(error, this.call));
  }
}
