import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';

/** How streams and durable consumers are laid out on the server. */
export interface NatsLayout {
  /** Prefix of every stream name (default `WEFT_`). */
  streamPrefix: string;
  /** Prefix of every subject on the wire, '' for none (isolates test runs and tenants). */
  namespace: string;
  /** Messages older than this are dropped by the server (default 7 days). */
  maxAgeMs: number;
  /** `file` (survives restarts, default) or `memory`. */
  storage: 'file' | 'memory';
}

/** The subject on the wire for a port subject. */
export function wireSubject(layout: NatsLayout, subject: string): string {
  return layout.namespace === '' ? subject : `${layout.namespace}.${subject}`;
}

/** The port subject for a subject on the wire. */
export function portSubject(layout: NatsLayout, wire: string): string {
  return layout.namespace === '' ? wire : wire.slice(layout.namespace.length + 1);
}

/** Stream and consumer names may not contain `.`; subjects map one to one onto streams. */
export function natsName(value: string): string {
  return value.replaceAll('.', '_');
}

/** The stream of a port subject: one stream per subject (docs/design.md#scale-out). */
export function streamName(layout: NatsLayout, subject: string): string {
  return `${layout.streamPrefix}${natsName(wireSubject(layout, subject))}`;
}

function isNotFound(error: unknown): boolean {
  return error instanceof JetStreamApiError && error.status === 404;
}

/** Creates the stream of a subject unless it exists; limits retention, so groups are independent. */
export async function ensureStream(
  jsm: JetStreamManager,
  layout: NatsLayout,
  subject: string,
): Promise<string> {
  const name = streamName(layout, subject);
  try {
    await jsm.streams.info(name);
    return name;
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  try {
    await jsm.streams.add({
      name,
      subjects: [wireSubject(layout, subject)],
      retention: RetentionPolicy.Limits,
      storage: layout.storage === 'memory' ? StorageType.Memory : StorageType.File,
      max_age: nanos(layout.maxAgeMs),
      duplicate_window: nanos(Math.min(120_000, layout.maxAgeMs)),
    });
  } catch (error) {
    // Another process created it at the same time.
    await jsm.streams.info(name).catch(() => Promise.reject(error));
  }
  return name;
}

/** Durable consumer settings of one group. */
export interface GroupConsumer {
  stream: string;
  subject: string;
  group: string;
  ackTimeoutMs: number;
  maxAckPending: number;
  startFrom: 'earliest' | 'latest';
}

/**
 * Creates (or updates) the durable pull consumer of a group: explicit acks, `ack_wait` the ack
 * timeout, unlimited server-side deliveries (the client dead-letters past `maxDeliveries`, so a
 * message is never dropped silently by `max_deliver`).
 */
export async function ensureConsumer(
  jsm: JetStreamManager,
  layout: NatsLayout,
  settings: GroupConsumer,
): Promise<string> {
  const durable = natsName(settings.group);
  const mutable = {
    ack_wait: nanos(settings.ackTimeoutMs),
    max_ack_pending: settings.maxAckPending,
    max_deliver: -1,
  };
  try {
    const info = await jsm.consumers.info(settings.stream, durable);
    const config = info.config;
    if (
      config.ack_wait !== mutable.ack_wait ||
      config.max_ack_pending !== mutable.max_ack_pending
    ) {
      await jsm.consumers.update(settings.stream, durable, mutable);
    }
    return durable;
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  try {
    await jsm.consumers.add(settings.stream, {
      ...mutable,
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      filter_subject: wireSubject(layout, settings.subject),
      deliver_policy: settings.startFrom === 'latest' ? DeliverPolicy.New : DeliverPolicy.All,
    });
  } catch (error) {
    await jsm.consumers.info(settings.stream, durable).catch(() => Promise.reject(error));
  }
  return durable;
}
