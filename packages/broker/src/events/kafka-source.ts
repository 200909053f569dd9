import { Kafka, logLevel, type Consumer } from 'kafkajs';
import type { EventHandler, EventSource } from '@weft/core';
import { decodeEvent } from './decode.js';
import { silentLogger, type EventSourceLogger } from './logger.js';

/** Options of {@link KafkaEventSource}. */
export interface KafkaSourceOptions {
  /** Broker addresses, `host:9092`. */
  brokers: readonly string[];
  /** Consumer group shared by replicas. Default `weft-triggers`. */
  groupId?: string;
  clientId?: string;
  /** Read topics from the beginning the first time the group sees them. Default false. */
  fromBeginning?: boolean;
  logger?: EventSourceLogger;
}

/**
 * Kafka topics as an event source, through one kafkajs consumer in a consumer group (replicas
 * share partitions). An offset is committed after its handler resolves, so a failed start is
 * redelivered. Subscribing to a new topic restarts the consumer with the whole topic set.
 */
export class KafkaEventSource implements EventSource {
  readonly kind = 'kafka' as const;
  private readonly kafka: Kafka;
  private readonly handlers = new Map<string, EventHandler>();
  private consumer: Consumer | undefined;
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly options: KafkaSourceOptions) {
    this.kafka = new Kafka({
      clientId: options.clientId ?? 'weft',
      brokers: [...options.brokers],
      logLevel: logLevel.NOTHING,
    });
  }

  async subscribe(topic: string, handler: EventHandler): Promise<() => Promise<void>> {
    this.handlers.set(topic, handler);
    await this.restart();
    return async () => {
      this.handlers.delete(topic);
      await this.restart();
    };
  }

  async close(): Promise<void> {
    this.handlers.clear();
    await this.restart();
  }

  /** Recreates the consumer for the current topics (serialised: one restart at a time). */
  private restart(): Promise<void> {
    this.chain = this.chain.then(async () => {
      if (this.consumer) {
        await this.consumer.disconnect();
        this.consumer = undefined;
      }
      if (this.handlers.size === 0) return;
      const logger = this.options.logger ?? silentLogger;
      const consumer = this.kafka.consumer({ groupId: this.options.groupId ?? 'weft-triggers' });
      await consumer.connect();
      await consumer.subscribe({
        topics: [...this.handlers.keys()],
        fromBeginning: this.options.fromBeginning ?? false,
      });
      await consumer.run({
        eachMessage: async ({ topic, message }) => {
          const handler = this.handlers.get(topic);
          if (!handler) return;
          try {
            await handler(decodeEvent(message.value?.toString('utf8') ?? ''));
          } catch (error) {
            logger.error({ topic, err: error }, 'kafka: event handler failed');
            throw error;
          }
        },
      });
      this.consumer = consumer;
    });
    return this.chain;
  }
}
