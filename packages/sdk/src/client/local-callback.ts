import { parseRetryAfter, systemClock, type CallbackBody, type ExecutionRecord } from '@weft/core';
import {
  callbackHeaders,
  DEFAULT_CALLBACK_POLICY,
  deliverCallback,
  type CallbackOutcome,
} from '../callbacks/index.js';
import { request } from 'undici';
import type { LocalExecution } from './local-execution.js';

/**
 * The completion callback of a local asynchronous run (docs/runtime.md#callbacks): the server's
 * body, signed with the Standard Webhooks headers under `secret`, retried as the server retries
 * (`deliverCallback` of `@weft/sdk/callbacks`, the server's loop and policy); each attempt's
 * state is shown on the run's record. Redirects are not followed. Unlike the server, any address
 * may be reached (the callback goes where this process could post anyway). `signal` stops the
 * retries.
 */
export async function sendLocalCallback(
  run: LocalExecution,
  secret: string,
  signal: AbortSignal,
): Promise<void> {
  const record = run.record();
  const state = record.callback;
  if (!state || state.status !== 'pending') return;
  const body = JSON.stringify(callbackBody(record));
  await deliverCallback({
    state,
    policy: DEFAULT_CALLBACK_POLICY,
    clock: systemClock,
    signal,
    // An attempt under way when `signal` fires is finished; only the retries stop.
    attempt: () => attempt(state.url, secret, state.webhook_id, body),
    record: (_attempt, next) => run.setCallback({ ...next, url: state.url }),
  });
}

/** The body the server sends for an ended execution. */
function callbackBody(record: ExecutionRecord): CallbackBody {
  return {
    execution_id: record.execution_id,
    status: record.status,
    result: record.result ?? { outputs: {} },
    ...(record.error ? { error: record.error } : {}),
  };
}

async function attempt(
  url: string,
  secret: string,
  id: string,
  body: string,
): Promise<CallbackOutcome> {
  try {
    const timestamp = Math.floor(Date.now() / 1000);
    const response = await request(url, {
      method: 'POST',
      headers: callbackHeaders(secret, id, timestamp, body),
      body,
      signal: AbortSignal.timeout(DEFAULT_CALLBACK_POLICY.timeoutMs),
    });
    await response.body.dump();
    const status = response.statusCode;
    const retryAfter = parseRetryAfter(response.headers['retry-after'], { now: Date.now() });
    return {
      status,
      error: status >= 200 && status < 300 ? null : `HTTP ${status}`,
      ...(retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}),
    };
  } catch (error) {
    const code = (error as { code?: string }).code;
    const message = error instanceof Error ? error.message : String(error);
    return { status: null, error: code ? `${code}: ${message}` : message };
  }
}
