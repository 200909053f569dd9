import kafkajs, { type Admin, type Consumer, type IHeaders, type Producer } from 'kafkajs';
import {
  type Broker,
  type ConsumeOptions,
  type MessageHandler,
  type PublishOptions,
  type Subscription,
} from '@weft/core';
import { checkSubject, compileConsumeOptions } from '../consume-options.js';
import { deliver, KeepAlive } from '../delivery.js';
import { toBytes } from '../memory/memory-broker.js';
import { MicroBatcher } from './micro-batcher.js';

/** Options of {@link KafkaBroker.connect}. */
export interface KafkaBrokerOptions {
  /** `host:port` bootstrap brokers. */
  brokers: string[];
  /** Prefix of every topic name, '' for none (isolates test runs). */
  namespace?: string | undefined;
  /** Partitions of a topic weft creates (default 8): the most members a group can use. */
  partitions?: number | undefined;
}

/** Header with the delivery number of a republished (nacked) message. */
const DELIVERIES_HEADER = 'weft-deliveries';
/** Header: do not handle before this time (ms since epoch). */
const NOT_BEFORE_HEADER = 'weft-not-before';

function text(value: IHeaders[string]): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? undefined : first.toString();
}

/**
 * The Kafka broker (kafkajs): topics created on first use, consumer groups, commits after the
 * handler settles (at least once: a crashed member's uncommitted messages go to another member
 * after the session timeout). Kafka has no per-message nack: a nack republishes the message with
 * its delivery count and not-before time in headers and commits the original; a retry delay
 * holds up its partition. Deliveries after a crash are not counted (Kafka does not count them).
 */
export class KafkaBroker implements Broker {
  readonly kind = 'kafka';
  private readonly topics = new Map<string, Promise<void>>();
  private readonly consumers = new Set<{ consumer: Consumer; abandon(): void }>();
  private readonly batcher: MicroBatcher;

  private constructor(
    private readonly kafka: InstanceType<typeof kafkajs.Kafka>,
    private readonly admin: Admin,
    private readonly producer: Producer,
    private readonly options: KafkaBrokerOptions,
  ) {
    this.batcher = new MicroBatcher(producer);
  }

  /** Connects the admin client and the producer. */
  static async connect(options: KafkaBrokerOptions): Promise<KafkaBroker> {
    const kafka = new kafkajs.Kafka({
      clientId: 'weft',
      brokers: options.brokers,
      logLevel: kafkajs.logLevel.NOTHING,
    });
    const admin = kafka.admin();
    const producer = kafka.producer({ allowAutoTopicCreation: false, idempotent: true });
    await admin.connect();
    await producer.connect();
    return new KafkaBroker(kafka, admin, producer, options);
  }

  private topicOf(subject: string): string {
    const namespace = this.options.namespace ?? '';
    return namespace === '' ? subject : `${namespace}.${subject}`;
  }

  private ensureTopic(subject: string): Promise<void> {
    let ready = this.topics.get(subject);
    if (ready === undefined) {
      const topic = this.topicOf(subject);
      const partitions = this.options.partitions ?? 8;
      ready = this.admin
        .createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true })
        .then(() => undefined);
      ready.catch(() => this.topics.delete(subject));
      this.topics.set(subject, ready);
    }
    return ready;
  }

  async publish(subject: string, data: Uint8Array | string, options: PublishOptions = {}) {
    checkSubject(subject);
    await this.ensureTopic(subject);
    await this.batcher.send(this.topicOf(subject), {
      key: options.key ?? null,
      value: Buffer.from(toBytes(data)),
      headers: { ...options.headers },
    });
  }

  async consume(
    subject: string,
    options: ConsumeOptions,
    handler: MessageHandler,
  ): Promise<Subscription> {
    const compiled = compileConsumeOptions(subject, options);
    await this.ensureTopic(subject);
    await this.ensureTopic(compiled.deadLetterSubject);
    const consumer = this.kafka.consumer({
      groupId: compiled.group,
      sessionTimeout: Math.max(6000, compiled.ackTimeoutMs),
    });
    let abandonAll: () => void = () => undefined;
    const abandoned = new Promise<never>((_, reject) => {
      abandonAll = () => reject(new Error('consumer abandoned'));
    });
    abandoned.catch(() => undefined);
    const publish = (s: string, d: Uint8Array, o: PublishOptions) => this.publish(s, d, o);
    const keepAlive = new KeepAlive(compiled.ackTimeoutMs);
    await consumer.connect();
    await consumer.subscribe({
      topic: this.topicOf(subject),
      fromBeginning: compiled.startFrom === 'earliest',
    });
    await consumer.run({
      partitionsConsumedConcurrently: compiled.concurrency,
      eachMessage: async ({ message, heartbeat }) => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(message.headers ?? {})) {
          const v = text(value);
          if (v !== undefined && name !== DELIVERIES_HEADER && name !== NOT_BEFORE_HEADER)
            headers[name] = v;
        }
        const notBefore = Number(text(message.headers?.[NOT_BEFORE_HEADER]) ?? 0);
        if (notBefore > Date.now()) await new Promise((r) => setTimeout(r, notBefore - Date.now()));
        const deliveryCount = Number(text(message.headers?.[DELIVERIES_HEADER]) ?? 1);
        const key = message.key === null ? undefined : message.key.toString();
        const value = new Uint8Array(message.value ?? Buffer.alloc(0));
        const run = deliver(
          {
            subject,
            data: value,
            headers,
            key,
            id: message.offset,
            deliveryCount,
            ack: async () => undefined, // committed when eachMessage returns
            nak: (delayMs) =>
              this.publish(subject, value, {
                key,
                headers: {
                  ...headers,
                  [DELIVERIES_HEADER]: String(deliveryCount + 1),
                  [NOT_BEFORE_HEADER]: String(Date.now() + delayMs),
                },
              }),
            working: () => void heartbeat().catch(() => undefined),
          },
          compiled,
          handler,
          publish,
          keepAlive,
        );
        await Promise.race([run, abandoned]);
      },
    });
    const entry = { consumer, abandon: abandonAll };
    this.consumers.add(entry);
    return {
      stop: async () => {
        this.consumers.delete(entry);
        await consumer.disconnect();
      },
    };
  }

  async pending(subject: string, group: string): Promise<number | null> {
    const topic = this.topicOf(subject);
    const [ends, committed] = await Promise.all([
      this.admin.fetchTopicOffsets(topic),
      this.admin.fetchOffsets({ groupId: group, topics: [topic] }),
    ]);
    const done = new Map(
      (committed[0]?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]),
    );
    let lag = 0;
    for (const end of ends) {
      const at = done.get(end.partition) ?? -1;
      lag += Number(end.high) - (at < 0 ? Number(end.low) : at);
    }
    return lag;
  }

  async close(): Promise<void> {
    for (const { consumer, abandon } of this.consumers) {
      abandon();
      await consumer.disconnect().catch(() => undefined);
    }
    this.consumers.clear();
    await this.batcher.flush();
    await this.producer.disconnect();
    await this.admin.disconnect();
  }
}
