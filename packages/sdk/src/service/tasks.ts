import { fromErrorObject, type Broker, type BrokerHeaders, type Subscription } from '@weft/core';
import { consumeTasks, TASK_HEADERS, type ConsumeTasksOptions } from '@weft/broker/tasks';
import { continueTrace } from '@weft/telemetry';
import type { Logger } from 'pino';
import type { ConnectorHost } from './host.js';

/**
 * Serves a plugin's broker tasks (docs/protocol.md#broker-tasks) with the same host as `POST /execute`: each
 * task runs as the request (docs/protocol.md#action-calls) `{action: "<plugin>.<action>", input}` (with `runtime` from
 * the header `weft-runtime`, checked as in a request) under its idempotency key,
 * so a task delivered again after a crash or a lost ack gets the answer already given when this
 * process still remembers it. A failed action publishes its error (docs/protocol.md#error-object) as the result.
 */
export function serveTasks(
  host: ConnectorHost,
  broker: Broker,
  pluginSlug: string,
  logger: Logger,
  options: Omit<ConsumeTasksOptions, 'broker' | 'pluginSlug' | 'handle'> = {},
): Promise<Subscription> {
  return consumeTasks({
    onError: (error) => logger.warn({ err: error, plugin: pluginSlug }, 'task consumer error'),
    onDeadLetter: (message, reason) =>
      logger.error(
        { plugin: pluginSlug, message_id: message.id, deliveries: message.deliveryCount, reason },
        'task dead-lettered',
      ),
    ...options,
    broker,
    pluginSlug,
    handle: async (task, context) => {
      const action = `${task.plugin}.${task.action}`;
      // A CONSUMER span continues the trace of the message's headers (when it has one).
      const answer = await continueTrace(
        context.headers,
        `execute ${action}`,
        {
          kind: 'consumer',
          attributes: { 'weft.plugin': task.plugin, 'weft.action': task.action },
          failed: (a) => (a.body.status === 'success' ? undefined : a.body.code),
        },
        () =>
          host.execute(
            { action, input: task.input, ...runtimeOf(context.headers) },
            undefined,
            context.idempotencyKey ?? '',
          ),
      );
      if (answer.body.status === 'success') return answer.body.data;
      throw fromErrorObject(answer.body);
    },
  });
}

/**
 * The `runtime` of a task, from its `weft-runtime` header (JSON text): `{}` without one. Text that
 * is not JSON is passed on as it is, so that the host refuses it as a bad `runtime`.
 */
function runtimeOf(headers: BrokerHeaders): { runtime?: unknown } {
  const text = headers[TASK_HEADERS.runtime];
  if (text === undefined) return {};
  try {
    return { runtime: JSON.parse(text) as unknown };
  } catch {
    return { runtime: text };
  }
}
