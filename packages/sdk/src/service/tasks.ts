import { fromErrorObject, type Broker, type Subscription } from '@weft/core';
import { consumeTasks, type ConsumeTasksOptions } from '@weft/broker/tasks';
import { continueTrace } from '@weft/telemetry';
import type { Logger } from 'pino';
import type { ConnectorHost } from './host.js';

/**
 * Serves a plugin's broker tasks (docs/protocol.md#broker-tasks) with the same host as `POST /execute`: each
 * task runs as the request (docs/protocol.md#action-calls) `{action: "<plugin>.<action>", input}` under its idempotency key,
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
        () => host.execute({ action, input: task.input }, undefined, context.idempotencyKey ?? ''),
      );
      if (answer.body.status === 'success') return answer.body.data;
      throw fromErrorObject(answer.body);
    },
  });
}
