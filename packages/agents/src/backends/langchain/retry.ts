import { backoffDelay, retryAfterMs } from '@weft/core';
import { findLimitError } from '../limited-fetch.js';
import { findNotRetried } from '../live-calls.js';

/** How a model call is retried: attempts after the first, and the first backoff. */
export interface RetryPolicy {
  readonly maxRetries: number;
  /** The first wait in ms, doubled at each retry, unless the server says how long to wait. */
  readonly initialDelayMs: number;
}

/** The longest `retry-after` honoured; a server asking for more gets the doubling backoff. */
const MAX_RETRY_AFTER_MS = 60_000;

/** The HTTP status of a model client's error (OpenAI and Anthropic SDKs), if it has one. */
export function statusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' ? status : undefined;
}

/**
 * Runs `call`, again after a 429, a 5xx or a lost connection, at most `maxRetries` more times,
 * waiting what the server asks (`retry-after-ms`, `retry-after`) or `initialDelayMs` doubled at
 * each retry. Never retries an aborted call or an answer over the size limit.
 */
export async function withRetry<T>(
  call: () => Promise<T>,
  policy: RetryPolicy,
  signal: AbortSignal,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= policy.maxRetries || signal.aborted || !retryable(error)) throw error;
      const wait =
        retryAfter(error) ?? backoffDelay(attempt + 1, { initialMs: policy.initialDelayMs });
      await sleep(wait, signal);
    }
  }
}

function retryable(error: unknown): boolean {
  if (findLimitError(error) || findNotRetried(error)) return false;
  const status = statusOf(error);
  if (status !== undefined) return status === 408 || status === 429 || status >= 500;
  // No status: a connection that failed or was reset (the SDKs' APIConnectionError).
  const name = error instanceof Error ? error.name : '';
  return (
    name === 'APIConnectionError' || (error instanceof TypeError && /fetch/i.test(error.message))
  );
}

function retryAfter(error: unknown): number | undefined {
  const headers = (error as { headers?: unknown }).headers;
  return retryAfterMs(
    (name) =>
      headers instanceof Headers
        ? headers.get(name)
        : typeof headers === 'object' && headers !== null
          ? (headers as Record<string, string | undefined>)[name]
          : undefined,
    { maxMs: MAX_RETRY_AFTER_MS },
  );
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const done = () => {
      signal.removeEventListener('abort', abort);
      resolve();
    };
    const abort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', abort, { once: true });
  });
}
