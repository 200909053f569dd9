import {
  DeleteMessageCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SQSClient,
  type SQSClientConfig,
} from '@aws-sdk/client-sqs';
import type { EventHandler, EventSource } from '@weft/core';
import { decodeEvent } from './decode.js';
import { silentLogger, type EventSourceLogger } from './logger.js';

/** Options of {@link SqsEventSource}. */
export interface SqsSourceOptions {
  /** Client settings (region, endpoint for a local SQS, credentials). */
  client?: SQSClientConfig;
  /** Long-poll wait, seconds (1–20). Default 20. */
  waitSeconds?: number;
  logger?: EventSourceLogger;
}

/**
 * SQS queues as an event source (topic = queue URL or name), by long polling. A message is
 * deleted after its handler resolves; a failed one becomes visible again and is redelivered. An
 * SNS envelope (`Type: Notification`) is unwrapped to its `Message`.
 */
export class SqsEventSource implements EventSource {
  readonly kind = 'sqs' as const;
  private readonly client: SQSClient;
  private readonly loops = new Set<AbortController>();

  constructor(private readonly options: SqsSourceOptions = {}) {
    this.client = new SQSClient(options.client ?? {});
  }

  async subscribe(topic: string, handler: EventHandler): Promise<() => Promise<void>> {
    const url = /^https?:\/\//.test(topic)
      ? topic
      : (await this.client.send(new GetQueueUrlCommand({ QueueName: topic }))).QueueUrl!;
    const controller = new AbortController();
    this.loops.add(controller);
    const done = this.poll(url, handler, controller.signal);
    return async () => {
      controller.abort();
      this.loops.delete(controller);
      await done;
    };
  }

  async close(): Promise<void> {
    for (const controller of this.loops) controller.abort();
    this.loops.clear();
    this.client.destroy();
  }

  private async poll(url: string, handler: EventHandler, signal: AbortSignal): Promise<void> {
    const logger = this.options.logger ?? silentLogger;
    while (!signal.aborted) {
      try {
        const { Messages = [] } = await this.client.send(
          new ReceiveMessageCommand({
            QueueUrl: url,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: this.options.waitSeconds ?? 20,
          }),
          { abortSignal: signal },
        );
        for (const message of Messages) {
          try {
            await handler(unwrap(decodeEvent(message.Body ?? '')));
            await this.client.send(
              new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: message.ReceiptHandle }),
            );
          } catch (error) {
            logger.error(
              { queue: url, err: error },
              'sqs: event handler failed; it will be redelivered',
            );
          }
        }
      } catch (error) {
        if (signal.aborted) return;
        logger.error({ queue: url, err: error }, 'sqs: receive failed; retrying in 1 s');
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }
}

function unwrap(event: unknown): unknown {
  const e = event as Record<string, unknown> | null;
  if (e && e['Type'] === 'Notification' && typeof e['Message'] === 'string') {
    return decodeEvent(e['Message']);
  }
  return event;
}
