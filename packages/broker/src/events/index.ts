/**
 * @packageDocumentation Event sources (the `EventSource` port of `@weft/core`) on the buses weft
 * listens to for event triggers: NATS subjects, Kafka topics and SQS queues. Their own subpath,
 * so that using a broker does not load the SQS client.
 */
export { NatsEventSource, type NatsSourceOptions } from './nats-source.js';
export { KafkaEventSource, type KafkaSourceOptions } from './kafka-source.js';
export { SqsEventSource, type SqsSourceOptions } from './sqs-source.js';
export type { EventSourceLogger } from './logger.js';
