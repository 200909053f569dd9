/**
 * The event source port (docs/design.md#ports): an external event bus whose messages start the
 * workflows with event triggers. The runtime's event router consumes it; the implementations for
 * NATS, Kafka and SQS live in `@weft/broker/events`, beside the brokers, and the server chooses
 * which to give the runtime.
 */

/**
 * Receives the events of one subscription, each decoded (JSON when it parses, else the text); a
 * rejection leaves the message unacknowledged.
 */
export type EventHandler = (event: unknown) => Promise<void>;

/** Kinds of external event sources (custom and webhook events arrive over HTTP or in process). */
export type ExternalSourceKind = 'nats' | 'kafka' | 'sqs' | 'sns';

/**
 * An event bus weft listens to. Subscriptions are shared by all replicas as competing consumers
 * (a NATS queue group, a Kafka consumer group, an SQS queue), so each event starts its workflows
 * once.
 */
export interface EventSource {
  readonly kind: ExternalSourceKind;
  /** Starts delivering the events of `topic`; resolves to the function that stops it. */
  subscribe(topic: string, handler: EventHandler): Promise<() => Promise<void>>;
  /** Stops every subscription and closes connections. */
  close(): Promise<void>;
}
