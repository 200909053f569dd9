/**
 * @packageDocumentation weft broker: in-memory, NATS JetStream and Kafka implementations of the
 * Broker port, and the task protocol on them. The event sources are at `@weft/broker/events`.
 */
export * from './connect.js';
export * from './consume-options.js';
export { MemoryBroker } from './memory/memory-broker.js';
export { MemoryBackend } from './memory/backend.js';
export { NatsBroker, type NatsBrokerOptions } from './nats/nats-broker.js';
export type { NatsLayout } from './nats/streams.js';
export { KafkaBroker, type KafkaBrokerOptions } from './kafka/kafka-broker.js';
export * from './tasks/index.js';
export * from './test-brokers.js';
