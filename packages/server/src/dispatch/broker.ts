import type { TaskDispatcher, TaskResultMessage } from '@weft/broker';
import { fromErrorObject, type ActionCall, type InvocationResult } from '@weft/core';

/**
 * `metadata.transport` of a router registration whose instance takes its actions as broker task
 * messages (docs/protocol.md#broker-tasks) instead of `POST /execute`. It still registers a `url` and answers
 * its health checks over HTTP, like every instance.
 */
export const BROKER_TRANSPORT = 'broker';

/** Whether a registered instance takes its actions by broker. */
export function isBrokerInstance(metadata: Readonly<Record<string, unknown>>): boolean {
  return metadata['transport'] === BROKER_TRANSPORT;
}

/**
 * Runs one action as a task (docs/protocol.md#broker-tasks) on `platform.workflow.<slug>` and waits for its result; the
 * message carries the call's idempotency key `<execution_id>/<step path>`. The wait ends with
 * the call's abort signal (the step's timeout, a cancel) or after `timeoutMs`. The step's
 * `runtime` rides as the header `weft-runtime`.
 */
export async function invokeByBroker(
  tasks: TaskDispatcher,
  slug: string,
  call: ActionCall,
  timeoutMs: number,
): Promise<InvocationResult> {
  const { workflowId, idempotencyKey, signal } = call.context;
  const step = idempotencyKey.startsWith(`${workflowId}/`)
    ? idempotencyKey.slice(workflowId.length + 1)
    : idempotencyKey;
  const result: TaskResultMessage = await tasks.dispatch(
    {
      workflowId,
      plugin: slug,
      action: call.action,
      input: call.input,
      step,
      ...(call.runtime ? { runtime: call.runtime } : {}),
    },
    // The action span's trace context rides as message headers; the body (docs/protocol.md#broker-tasks) is unchanged.
    { timeoutMs, signal, headers: { ...call.trace } },
  );
  if (result.status === 'success') return { output: result.output ?? {} };
  throw fromErrorObject(result.error);
}
