import {
  toErrorObject,
  type Broker,
  type BrokerHeaders,
  type BrokerMessage,
  type ConsumeOptions,
  type Subscription,
} from '@weft/core';
import {
  parseTaskMessage,
  RESULTS_SUBJECT,
  TASK_HEADERS,
  taskSubject,
  type TaskMessage,
  type TaskResultMessage,
} from './messages.js';

/** What a task handler is told besides the message (docs/protocol.md#broker-tasks). */
export interface TaskContext {
  /** Step path from the `weft-step` header, or null. */
  step: string | null;
  /** `<execution_id>/<step path>` from the `idempotency-key` header, or null: drop duplicates by it. */
  idempotencyKey: string | null;
  /** Which delivery of this task this is, from 1 (above 1 after a crash or a failed publish). */
  deliveryCount: number;
  /** The message's headers (W3C `traceparent`/`tracestate` among them when the run is traced). */
  headers: BrokerHeaders;
}

/** Runs one task; resolves to the action output or throws (a `WeftError` keeps its code). */
export type TaskHandler = (task: TaskMessage, context: TaskContext) => Promise<unknown> | unknown;

/** Options of {@link consumeTasks}. */
export interface ConsumeTasksOptions extends Partial<Omit<ConsumeOptions, 'group'>> {
  broker: Broker;
  /** The plugin whose topic `platform.workflow.<plugin_slug>` is consumed. */
  pluginSlug: string;
  /** Runs each task. */
  handle: TaskHandler;
  /** Consumer group; every instance of one plugin service shares it (default `plugin.<slug>`). */
  group?: string;
}

function header(message: BrokerMessage, name: string): string | null {
  const value = message.headers[name];
  return value === undefined || value === '' ? null : value;
}

function resultOf(task: TaskMessage, message: BrokerMessage): Omit<TaskResultMessage, 'status'> {
  return {
    workflow_id: task.workflow_id,
    step: header(message, TASK_HEADERS.step),
    idempotency_key: header(message, TASK_HEADERS.idempotencyKey),
    plugin: task.plugin,
    action: task.action,
    timestamp: new Date().toISOString(),
  };
}

async function publishResult(
  broker: Broker,
  result: TaskResultMessage,
  message: BrokerMessage,
): Promise<void> {
  await broker.publish(RESULTS_SUBJECT, JSON.stringify(result), {
    key: result.workflow_id,
    headers: message.headers,
  });
}

/**
 * Serves a plugin's broker tasks (docs/protocol.md#broker-tasks): consumes `platform.workflow.<plugin_slug>` in a
 * consumer group, parses each task (an unparsable one goes to the dead-letter subject at once),
 * runs `handle`, publishes the result (or the error object (docs/protocol.md#error-object) the handler threw) on
 * `platform.workflow.results` keyed by `workflow_id`, and only then acks — at least once. A task
 * dead-lettered after its last delivery gets an error result, so the dispatcher is not left
 * waiting.
 */
export async function consumeTasks(options: ConsumeTasksOptions): Promise<Subscription> {
  const { broker, pluginSlug, handle, group, ...consume } = options;
  const subject = taskSubject(pluginSlug);
  const userDeadLetter = consume.onDeadLetter;
  return broker.consume(
    subject,
    {
      ...consume,
      group: group ?? `plugin.${pluginSlug}`,
      onDeadLetter: async (message, reason) => {
        let task: TaskMessage | undefined;
        try {
          task = parseTaskMessage(message.text());
        } catch {
          task = undefined;
        }
        if (task !== undefined) {
          const error = toErrorObject(
            new Error(`task dead-lettered after ${message.deliveryCount} deliveries: ${reason}`),
          );
          await publishResult(
            broker,
            { ...resultOf(task, message), status: 'error', error },
            message,
          );
        }
        await userDeadLetter?.(message, reason);
      },
    },
    async (message) => {
      let task: TaskMessage;
      try {
        task = parseTaskMessage(message.text());
      } catch (error) {
        await message.deadLetter((error as Error).message);
        return;
      }
      const context: TaskContext = {
        step: header(message, TASK_HEADERS.step),
        idempotencyKey: header(message, TASK_HEADERS.idempotencyKey),
        deliveryCount: message.deliveryCount,
        headers: message.headers,
      };
      let result: TaskResultMessage;
      try {
        const output = await handle(task, context);
        result = { ...resultOf(task, message), status: 'success', output: output ?? null };
      } catch (error) {
        result = { ...resultOf(task, message), status: 'error', error: toErrorObject(error) };
      }
      await publishResult(broker, result, message);
      await message.ack();
    },
  );
}
