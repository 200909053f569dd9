import type { Broker } from '@weft/core';
import { KafkaBroker } from './kafka/kafka-broker.js';
import { MemoryBackend } from './memory/backend.js';
import { MemoryBroker } from './memory/memory-broker.js';
import { NatsBroker } from './nats/nats-broker.js';

/** Clients of one throwaway broker backend for tests, and how to get rid of it. */
export interface TestBroker {
  kind: 'memory' | 'nats' | 'kafka';
  /** A new client (connection) of the backend. */
  connect(): Promise<Broker>;
  /** Removes what the run created (its NATS streams). */
  dispose(): Promise<void>;
  /** An ack timeout short enough for tests and long enough for the backend. */
  ackTimeoutMs: number;
  /** Whether a delivery after a consumer crash counts as a new delivery (not on Kafka). */
  countsCrashRedeliveries: boolean;
}

/** A namespace of its own for one test run: `weft-test-<pid>-<random>`. */
export function testNamespace(): string {
  return `weft-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * Opens a fresh test backend: a new in-memory backend, or a new namespace on the NATS server
 * (`url`, streams deleted by `dispose`) or on the Kafka cluster (`url` = `host:port,...`; its
 * topics are left to the cluster's retention).
 */
export function openTestBroker(kind: 'memory' | 'nats' | 'kafka', url = ''): TestBroker {
  switch (kind) {
    case 'memory': {
      const backend = new MemoryBackend();
      return {
        kind,
        connect: async () => new MemoryBroker(backend),
        dispose: async () => undefined,
        ackTimeoutMs: 300,
        countsCrashRedeliveries: true,
      };
    }
    case 'nats': {
      const options = { servers: [url], namespace: testNamespace(), maxAgeMs: 3_600_000 };
      return {
        kind,
        connect: () => NatsBroker.connect(options),
        dispose: async () => {
          const admin = await NatsBroker.connect(options);
          await admin.deleteNamespace();
          await admin.close();
        },
        ackTimeoutMs: 1000,
        countsCrashRedeliveries: true,
      };
    }
    case 'kafka': {
      const options = { brokers: url.split(','), namespace: testNamespace(), partitions: 4 };
      return {
        kind,
        connect: () => KafkaBroker.connect(options),
        dispose: async () => undefined,
        ackTimeoutMs: 6000,
        countsCrashRedeliveries: false,
      };
    }
  }
}
