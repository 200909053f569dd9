import { backoffDelay, type CallbackAttempt, type CallbackState, type Clock } from '@weft/core';
import { signWebhook } from './sign.js';

/** Retry policy of completion callbacks (docs/runtime.md#callbacks). */
export interface CallbackRetryPolicy {
  /** Attempts in all. */
  maxAttempts: number;
  /** Delay before the second attempt; doubled each time. */
  firstDelayMs: number;
  /** Longest delay (also caps `Retry-After`). */
  maxDelayMs: number;
  /** Timeout of one attempt. */
  timeoutMs: number;
}

/** The policy of the server and of local runs: 8 attempts from 1 s, at most 5 minutes apart. */
export const DEFAULT_CALLBACK_POLICY: Readonly<CallbackRetryPolicy> = Object.freeze({
  maxAttempts: 8,
  firstDelayMs: 1000,
  maxDelayMs: 300_000,
  timeoutMs: 10_000,
});

/** How one attempt went: the HTTP status (null: no answer), why it failed, `Retry-After`. */
export interface CallbackOutcome {
  status: number | null;
  error: string | null;
  retryAfterMs?: number;
}

/** One delivery: the state it starts from, its policy, and how to post and record. */
export interface CallbackDelivery {
  /** The state before the first attempt of this delivery (`pending`; else nothing is sent). */
  state: CallbackState;
  policy: CallbackRetryPolicy;
  clock: Clock;
  /** Stops retrying (the state stays `pending`). */
  signal?: AbortSignal;
  /** Posts the signed body once (headers from {@link callbackHeaders}). */
  attempt: () => Promise<CallbackOutcome>;
  /** Records an attempt and the state after it. */
  record: (attempt: CallbackAttempt, state: CallbackState) => Promise<void> | void;
}

/** Statuses worth another attempt (besides network errors): 5xx, 408 and 429. */
export function retryableCallbackStatus(status: number): boolean {
  return status >= 500 || status === 429 || status === 408;
}

/**
 * The headers of one callback attempt: JSON, the weft user agent, the run's trace context and
 * the Standard Webhooks signature of `body` under `secret` (see {@link signWebhook}).
 */
export function callbackHeaders(
  secret: string,
  webhookId: string,
  timestampSeconds: number,
  body: string,
  trace: Record<string, string> = {},
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'weft-callbacks/0.1',
    ...trace,
    ...signWebhook(secret, webhookId, timestampSeconds, body),
  };
}

/**
 * Delivers a callback until a 2xx (`delivered`), an answer not worth retrying or the last attempt
 * (`failed`), or `signal` (still `pending`): network errors, 5xx, 408 and 429 are retried with
 * exponential backoff, the receiver's `Retry-After` winning within `maxDelayMs`. Every attempt is
 * recorded. Gives the last state.
 */
export async function deliverCallback(delivery: CallbackDelivery): Promise<CallbackState> {
  const { policy, clock, signal } = delivery;
  let state = delivery.state;
  while (state.status === 'pending' && !signal?.aborted) {
    const attempt: number = state.attempts + 1;
    const started = clock.now();
    const outcome = await delivery.attempt();
    const at = new Date(started).toISOString();
    const ok = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
    const again = !ok && (outcome.status === null || retryableCallbackStatus(outcome.status));
    state = {
      ...state,
      attempts: attempt,
      last_status: outcome.status,
      last_error: ok ? null : outcome.error,
      status: ok ? 'delivered' : again && attempt < policy.maxAttempts ? 'pending' : 'failed',
      delivered_at: ok ? at : null,
    };
    const duration = clock.now() - started;
    await delivery.record(
      { attempt, at, status: outcome.status, error: outcome.error, duration_ms: duration },
      state,
    );
    if (state.status !== 'pending') return state;
    const delay = Math.min(
      policy.maxDelayMs,
      outcome.retryAfterMs ?? backoffDelay(attempt, { initialMs: policy.firstDelayMs }),
    );
    try {
      await clock.sleep(delay, signal);
    } catch {
      return state;
    }
  }
  return state;
}
