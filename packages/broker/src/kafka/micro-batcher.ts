import type { Message, Producer, TopicMessages } from 'kafkajs';

interface Queued {
  topic: string;
  message: Message;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Gathers the publishes of one event-loop turn into a single `sendBatch` (acks from all
 * in-sync replicas), so many concurrent publishes cost one round trip.
 */
export class MicroBatcher {
  private queue: Queued[] = [];
  private inFlight: Promise<void> = Promise.resolve();

  constructor(
    private readonly producer: Producer,
    private readonly maxBatch = 1000,
  ) {}

  /** Resolves once the message is stored. */
  send(topic: string, message: Message): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ topic, message, resolve, reject });
      if (this.queue.length === 1) setImmediate(() => void this.flush());
      else if (this.queue.length >= this.maxBatch) void this.flush();
    });
  }

  /** Sends what is queued now. */
  async flush(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return this.inFlight;
    const byTopic = new Map<string, Message[]>();
    for (const { topic, message } of batch) {
      const list = byTopic.get(topic) ?? [];
      list.push(message);
      byTopic.set(topic, list);
    }
    const topicMessages: TopicMessages[] = [...byTopic].map(([topic, messages]) => ({
      topic,
      messages,
    }));
    this.inFlight = this.producer.sendBatch({ topicMessages, acks: -1 }).then(
      () => batch.forEach((q) => q.resolve()),
      (error: unknown) => batch.forEach((q) => q.reject(error)),
    );
    return this.inFlight;
  }
}
