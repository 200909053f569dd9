import { fromErrorObject, type ActionCall, type InvocationResult } from '@weft/core';
import type { Router } from '@weft/router';

/**
 * Runs one action on an instance the router picks (`POST /execute` over its keep-alive pool),
 * with the step's `runtime` when the call has one.
 * The run's signal (cancel, step timeout) reaches the instance's handler: the router closes the
 * call's connection, and the connector service aborts the handler's signal.
 */
export async function invokeByRouter(
  router: Router,
  slug: string,
  call: ActionCall,
): Promise<InvocationResult> {
  // The step's runtime rides in the body (a weft extension, docs/protocol.md#action-calls).
  const body = JSON.stringify({
    action: `${slug}.${call.action}`,
    input: call.input,
    ...(call.runtime ? { runtime: call.runtime } : {}),
  });
  const answer = await router.dispatcher.send(
    slug,
    call.action,
    body,
    // The router forwards `traceparent`: the connector service continues the action's span.
    { ...call.trace, 'idempotency-key': call.context.idempotencyKey },
    undefined,
    call.context.signal,
    // The handler's progress reports become the step's `step.progress` events as they come.
    (report) => call.context.progress(report.percent, report.message),
  );
  const answered = JSON.parse(answer.body.toString()) as Record<string, unknown>;
  if (answered['status'] === 'success') return { output: answered['data'] ?? {} };
  throw fromErrorObject(answered);
}
