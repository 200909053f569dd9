/**
 * @packageDocumentation The broker task protocol (docs/protocol.md#broker-tasks) on any `Broker`:
 * the task and result messages, the worker a plugin service runs (`consumeTasks`) and the
 * dispatcher the server waits for results with (`TaskDispatcher`). Its own subpath, so that a
 * connector service loads the protocol without the NATS and Kafka clients.
 */
export * from './messages.js';
export * from './worker.js';
export * from './dispatcher.js';
