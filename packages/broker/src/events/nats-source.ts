import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { EventHandler, EventSource } from '@weft/core';
import { decodeEvent } from './decode.js';
import { silentLogger, type EventSourceLogger } from './logger.js';

/** Options of {@link NatsEventSource}. */
export interface NatsSourceOptions {
  /** `nats://host:4222` (several separated by commas). */
  servers: string;
  /** Queue group shared by replicas: each message goes to one of them. Default `weft-triggers`. */
  queue?: string;
  logger?: EventSourceLogger;
}

/** NATS subjects as an event source (topic = subject, wildcards allowed); messages are JSON or text. */
export class NatsEventSource implements EventSource {
  readonly kind = 'nats' as const;
  private connection: Promise<NatsConnection> | undefined;

  constructor(private readonly options: NatsSourceOptions) {}

  async subscribe(topic: string, handler: EventHandler): Promise<() => Promise<void>> {
    const nc = await this.connect();
    const logger = this.options.logger ?? silentLogger;
    const subscription = nc.subscribe(topic, {
      queue: this.options.queue ?? 'weft-triggers',
      callback: (error, message) => {
        if (error) {
          logger.error({ topic, err: error }, 'nats: subscription error');
          return;
        }
        handler(decodeEvent(message.string())).catch((cause: unknown) =>
          logger.error({ topic, err: cause }, 'nats: event handler failed'),
        );
      },
    });
    await nc.flush();
    return async () => {
      subscription.unsubscribe();
    };
  }

  async close(): Promise<void> {
    if (!this.connection) return;
    const nc = await this.connection;
    this.connection = undefined;
    await nc.drain();
  }

  private connect(): Promise<NatsConnection> {
    this.connection ??= connect({ servers: this.options.servers.split(',').map((s) => s.trim()) });
    return this.connection;
  }
}
