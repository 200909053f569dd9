import { addUsage, type WeftError } from '@weft/core';
import { retryDelayMs, type RetryPlan, type StepPlan } from './plan.js';
import type { Run, StepTally } from './run.js';
import { abortOf, abortSignals } from './step-scope.js';

/** Codes never retried (docs/design.md#workflow-semantics). */
const FINAL_CODES = new Set(['VALIDATION', 'CANCELED']);

/** What every attempt of one action call shares. */
interface ActionAttempts {
  run: Run;
  plan: StepPlan;
  input: Record<string, unknown>;
  idempotencyKey: string;
  timeoutMs: number;
  retry: RetryPlan | undefined;
  record: StepTally;
  item: number | undefined;
}

/**
 * Attempts an action up to `max_attempts` times, waiting the backoff between attempts; counts
 * the attempts and the usage the invocations report into `record`. Resolves to the output.
 */
export function callWithRetry(
  run: Run,
  plan: StepPlan,
  input: Record<string, unknown>,
  key: string,
  record: StepTally,
  item: number | undefined,
): Promise<unknown> {
  const timeoutMs =
    plan.timeoutMs ??
    (plan.def.type === 'agent'
      ? undefined
      : run.options.timeoutFor?.(plan.target!, plan.def.action!)) ??
    run.options.defaultTimeoutMs;
  return attemptNumber(
    {
      run,
      plan,
      input,
      idempotencyKey: `${run.options.executionId}/${key}`,
      timeoutMs,
      retry: plan.retry ?? run.defaultRetry,
      record,
      item,
    },
    1,
  );
}

/**
 * Attempt number `n`, chained on its promise rather than awaited in an async loop: most steps
 * make one attempt, which then allocates no async frame. A failure goes on in
 * {@link afterFailure}.
 */
function attemptNumber(action: ActionAttempts, n: number): Promise<unknown> {
  const { run, record } = action;
  record.attempts++;
  const span = run.listening
    ? {
        startedMs: run.now(),
        finishedMs: 0,
        ...(action.item !== undefined ? { item: action.item } : {}),
      }
    : undefined;
  if (span) (record.attemptLog ??= []).push(span);
  return run
    .attempt(action.plan, action.input, action.idempotencyKey, action.timeoutMs, n, action.item)
    .then(
      (result) => {
        if (result.usage) record.usage = addUsage(record.usage, result.usage);
        if (span) span.finishedMs = run.now();
        return result.output;
      },
      (error: unknown) => afterFailure(action, n, span, error),
    );
}

/** After attempt `n` failed: the next one after the backoff, or the error when none may follow. */
async function afterFailure(
  action: ActionAttempts,
  n: number,
  span: { finishedMs: number; code?: string } | undefined,
  error: unknown,
): Promise<unknown> {
  const { run, plan, retry } = action;
  const weft = error as WeftError;
  if (span) Object.assign(span, { finishedMs: run.now(), code: weft.code });
  if (n >= (retry?.maxAttempts ?? 1) || FINAL_CODES.has(weft.code) || run.canceled) throw error;
  if (run.aborted && abortOf(run, plan)) throw error;
  try {
    await run.options.clock.sleep(retryDelayMs(retry!, n), retrySignal(run, plan));
  } catch (reason) {
    throw run.canceled ?? (run.aborted && abortOf(run, plan)) ?? reason;
  }
  return attemptNumber(action, n + 1);
}

/** What stops a retry delay: the run's cancellation, and interceptors aborting the step. */
function retrySignal(run: Run, plan: StepPlan): AbortSignal {
  if (!run.scopes) return run.cancelSignal;
  const signals = abortSignals(run, plan);
  signals.push(run.cancelSignal);
  return signals.length === 1 ? signals[0]! : AbortSignal.any(signals);
}
