/**
 * The message broker port (docs/design.md#ports, docs/design.md#scale-out): topics (subjects) of durable messages consumed in
 * consumer groups, at least once. Implementations live in `@weft/broker`: in-memory (default),
 * NATS JetStream and Kafka; all of them pass one contract test suite.
 */

/** Message headers: string keys and string values. */
export type BrokerHeaders = Readonly<Record<string, string>>;

/** Options of {@link Broker.publish}. */
export interface PublishOptions {
  /** Headers stored with the message. */
  headers?: BrokerHeaders | undefined;
  /** Partitioning key: messages with one key keep their order where the broker partitions. */
  key?: string | undefined;
}

/** One delivery of a message to a consumer. */
export interface BrokerMessage {
  /** The subject it was published to. */
  readonly subject: string;
  /** The payload, as published. */
  readonly data: Uint8Array;
  /** Headers as published. */
  readonly headers: BrokerHeaders;
  /** The key it was published with, if any. */
  readonly key: string | undefined;
  /** A broker-assigned id, stable across redeliveries (stream sequence, offset). */
  readonly id: string;
  /** Which delivery this is, from 1. */
  readonly deliveryCount: number;
  /** The payload decoded as UTF-8. */
  text(): string;
  /** Done: the message is not delivered to this group again. */
  ack(): Promise<void>;
  /**
   * Failed: deliver it again after `delayMs` (default: the consumer's `retryDelayMs`). On the
   * last allowed delivery the message goes to the dead-letter subject instead.
   */
  nack(delayMs?: number): Promise<void>;
  /** Gives up at once: publishes the message to the dead-letter subject and acks it. */
  deadLetter(reason: string): Promise<void>;
}

/**
 * Handles one delivery. Resolving without calling `ack`, `nack` or `deadLetter` acks the message;
 * throwing nacks it (or dead-letters it on the last allowed delivery).
 */
export type MessageHandler = (message: BrokerMessage) => Promise<void> | void;

/** Options of {@link Broker.consume}. */
export interface ConsumeOptions {
  /** Consumer group: each message of the topic goes to one member of each group. */
  group: string;
  /** Most deliveries of one message; past them it goes to the dead-letter subject (default 5). */
  maxDeliveries?: number;
  /**
   * A delivery not settled within this many milliseconds is given to another member (default
   * 30,000). The consumer keeps messages whose handler is still running alive, so this bounds
   * the time to notice a crashed consumer, not the handler's run time.
   */
  ackTimeoutMs?: number;
  /** Delay before redelivering a nacked or failed message (default 1,000 ms). */
  retryDelayMs?: number;
  /** Handlers running at once in this consumer (default 64). */
  concurrency?: number;
  /** Where a message goes after its last failed delivery (default {@link deadLetterSubjectOf}). */
  deadLetterSubject?: string;
  /** Where a new group starts: every retained message (`earliest`, default) or new ones only. */
  startFrom?: 'earliest' | 'latest';
  /** Called after a message went to the dead-letter subject (with the reason it carries). */
  onDeadLetter?: (message: BrokerMessage, reason: string) => Promise<void> | void;
  /** Told of failures the consumer survives (handler errors, dead-letter publishes, reconnects). */
  onError?: (error: unknown) => void;
}

/** A running consumer. */
export interface Subscription {
  /** Stops taking messages and waits for the handlers still running to finish. */
  stop(): Promise<void>;
}

/** The broker port. */
export interface Broker {
  /** Which implementation this is (`memory`, `nats`, `kafka`). */
  readonly kind: string;
  /**
   * Stores a message on a subject; resolves once the broker has it (durably where the broker is
   * durable). Many publishes may be in flight at once; implementations batch and flow-control.
   */
  publish(subject: string, data: Uint8Array | string, options?: PublishOptions): Promise<void>;
  /** Starts consuming a subject in a consumer group. */
  consume(subject: string, options: ConsumeOptions, handler: MessageHandler): Promise<Subscription>;
  /**
   * Messages of the subject not yet acknowledged by the group (queue depth, docs/protocol.md#metrics), or null when
   * the broker cannot tell.
   */
  pending(subject: string, group: string): Promise<number | null>;
  /**
   * Closes the connection at once. Handlers still running are abandoned: their messages are not
   * acknowledged and are redelivered after the ack timeout. Call `Subscription.stop()` first to
   * drain.
   */
  close(): Promise<void>;
}

/** The default dead-letter subject of a subject: `<subject>.dead-letter`. */
export function deadLetterSubjectOf(subject: string): string {
  return `${subject}.dead-letter`;
}

/** Headers a dead-lettered message carries besides its own. */
export const DEAD_LETTER_HEADERS = {
  /** Subject it was consumed from. */
  subject: 'weft-dead-letter-subject',
  /** Consumer group that gave up on it. */
  group: 'weft-dead-letter-group',
  /** Why: the handler's error message or the reason given to `deadLetter`. */
  reason: 'weft-dead-letter-reason',
  /** Number of deliveries made. */
  deliveries: 'weft-dead-letter-deliveries',
} as const;

/** Subjects are dot-separated tokens of letters, digits, `_` and `-`. */
export const SUBJECT_PATTERN = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/;
