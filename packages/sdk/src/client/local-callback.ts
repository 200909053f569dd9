import { systemClock, type CallbackBody, type ExecutionRecord } from '@weft/core';
import {
  DEFAULT_CALLBACK_POLICY,
  deliverCallback,
  postCallback,
  type CallbackOutcome,
} from '../callbacks/index.js';
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

function attempt(url: string, secret: string, id: string, body: string): Promise<CallbackOutcome> {
  const signal = AbortSignal.timeout(DEFAULT_CALLBACK_POLICY.timeoutMs);
  return postCallback({ url, secret, webhookId: id, body, now: Date.now(), signal });
}
