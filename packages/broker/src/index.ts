/** @packageDocumentation weft broker: in-memory, NATS JetStream and Kafka implementations of the Broker port */
export {};
