import { fromErrorObject, type ActionCall, type InvocationResult } from '@weft/core';
import type { Router } from '@weft/router';
import { injectTraceContext } from '@weft/telemetry';

/**
 * Runs one action on an instance the router picks (`POST /execute` over its keep-alive pool).
 * The run's signal (cancel, step timeout) reaches the instance's handler: the router closes the
 * call's connection, and the connector service aborts the handler's signal.
 */
export async function invokeByRouter(
  router: Router,
  slug: string,
  call: ActionCall,
): Promise<InvocationResult> {
  const answer = await router.dispatcher.execute(
    slug,
    call.action,
    call.input,
    // The router forwards `traceparent`: the connector service continues the action's span.
    injectTraceContext({ 'idempotency-key': call.context.idempotencyKey }),
    undefined,
    call.context.signal,
  );
  const body = JSON.parse(answer.body.toString()) as Record<string, unknown>;
  if (body['status'] === 'success') return { output: body['data'] ?? {} };
  throw fromErrorObject(body);
}
