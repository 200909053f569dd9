import {
  jetstream,
  jetstreamManager,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from '@nats-io/jetstream';
import { connect, headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import {
  backoffDelay,
  UnavailableError,
  type Broker,
  type ConsumeOptions,
  type MessageHandler,
  type PublishOptions,
  type Subscription,
} from '@weft/core';
import { AsyncPublisher } from './async-publisher.js';
import { Coalescer } from './coalescer.js';
import { checkSubject, compileConsumeOptions } from '../consume-options.js';
import { deliver, KeepAlive, Slots, type RawDelivery } from '../delivery.js';
import { toBytes } from '../memory/memory-broker.js';
import {
  ensureConsumer,
  ensureStream,
  natsName,
  portSubject,
  streamName,
  type NatsLayout,
} from './streams.js';

/** The stream layout as options: a field left out or undefined takes its default. */
type OptionalLayout = { [K in keyof NatsLayout]?: NatsLayout[K] | undefined };

/** Options of {@link NatsBroker.connect}. */
export interface NatsBrokerOptions extends OptionalLayout {
  /** `nats://host:port` addresses. */
  servers: string[];
  /** Publishes awaiting the server's ack at once (default 4,096); more wait their turn. */
  maxPublishesInFlight?: number | undefined;
  /** How long a publish keeps retrying through a disconnect (default 30,000 ms). */
  publishRetryMs?: number | undefined;
}

/** Header carrying the publish key (NATS has no message keys). */
const KEY_HEADER = 'weft-key';

function readHeaders(message: JsMsg): {
  headers: Record<string, string>;
  key?: string | undefined;
} {
  const headers: Record<string, string> = {};
  let key: string | undefined;
  if (message.headers === undefined) return { headers };
  for (const name of message.headers.keys()) {
    if (name.startsWith('Nats-')) continue;
    if (name === KEY_HEADER) key = message.headers.get(name);
    else headers[name] = message.headers.get(name);
  }
  return { headers, key };
}

/**
 * The NATS JetStream broker: one stream per subject (limits retention, file storage), one
 * durable pull consumer per group (explicit acks, `ack_wait` = ack timeout), batch pulls,
 * flow-controlled async publishes retried until acknowledged, and a client that reconnects for
 * ever. Dead-lettering republishes to the dead-letter subject's own stream. Publishes carry no
 * `Nats-Msg-Id`: a retry after a lost ack may store a message twice, which the at-least-once
 * design already absorbs (services drop tasks by idempotency key, the runtime drops duplicate
 * results), and the stream's id tracking cost about 12% of the task throughput.
 */
export class NatsBroker implements Broker {
  readonly kind = 'nats';
  private readonly streams = new Map<string, Promise<string>>();
  private readonly publishSlots: Slots;
  private readonly stops = new Set<() => void>();
  private readonly publisher: AsyncPublisher;
  private readonly coalescer = new Coalescer();

  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly layout: NatsLayout,
    private readonly options: NatsBrokerOptions,
  ) {
    this.publishSlots = new Slots(options.maxPublishesInFlight ?? 4096);
    this.publisher = new AsyncPublisher(nc, this.coalescer);
  }

  /** Connects to the servers; throws an `UnavailableError` when none answers. */
  static async connect(options: NatsBrokerOptions): Promise<NatsBroker> {
    let nc: NatsConnection;
    try {
      nc = await connect({
        servers: options.servers,
        maxReconnectAttempts: -1,
        reconnectTimeWait: 250,
        name: 'weft',
      });
    } catch (error) {
      throw new UnavailableError(
        `cannot connect to NATS at ${options.servers.join(', ')}: ${(error as Error).message}`,
        {
          backend: 'nats',
          suggestion: 'start nats-server with JetStream (-js) or fix WEFT_BROKER',
        },
      );
    }
    const layout: NatsLayout = {
      streamPrefix: options.streamPrefix ?? 'WEFT_',
      namespace: options.namespace ?? '',
      maxAgeMs: options.maxAgeMs ?? 7 * 24 * 3600_000,
      storage: options.storage ?? 'file',
    };
    const jsm = await jetstreamManager(nc);
    return new NatsBroker(nc, jetstream(nc), jsm, layout, options);
  }

  private stream(subject: string): Promise<string> {
    let stream = this.streams.get(subject);
    if (stream === undefined) {
      stream = ensureStream(this.jsm, this.layout, subject);
      stream.catch(() => this.streams.delete(subject));
      this.streams.set(subject, stream);
    }
    return stream;
  }

  async publish(
    subject: string,
    data: Uint8Array | string,
    options: PublishOptions = {},
  ): Promise<void> {
    checkSubject(subject);
    const wire = this.layout.namespace === '' ? subject : `${this.layout.namespace}.${subject}`;
    const headers = natsHeaders();
    for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name, value);
    if (options.key !== undefined) headers.set(KEY_HEADER, options.key);
    const payload = toBytes(data);
    const deadline = Date.now() + (this.options.publishRetryMs ?? 30_000);
    await this.publishSlots.acquire();
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          await this.stream(subject);
          await this.publisher.publish(wire, payload, headers);
          return;
        } catch (error) {
          if (this.nc.isClosed() || Date.now() >= deadline) throw error;
          this.streams.delete(subject); // the stream may be gone or the server restarted
          const delay = backoffDelay(attempt + 1, { initialMs: 50, maxMs: 1000 });
          await new Promise((resolve) => setTimeout(resolve, delay));
        }
      }
    } finally {
      this.publishSlots.release();
    }
  }

  async consume(
    subject: string,
    options: ConsumeOptions,
    handler: MessageHandler,
  ): Promise<Subscription> {
    const compiled = compileConsumeOptions(subject, options);
    const stream = await this.stream(subject);
    await this.stream(compiled.deadLetterSubject);
    const durable = await ensureConsumer(this.jsm, this.layout, {
      stream,
      subject,
      group: compiled.group,
      ackTimeoutMs: compiled.ackTimeoutMs,
      maxAckPending: Math.max(1024, compiled.concurrency * 4),
      startFrom: compiled.startFrom,
    });
    const consumer = await this.js.consumers.get(stream, durable);
    const messages = await consumer.consume({
      max_messages: Math.min(1000, Math.max(16, compiled.concurrency)),
    });
    const slots = new Slots(compiled.concurrency);
    const keepAlive = new KeepAlive(compiled.ackTimeoutMs);
    const publish = (s: string, d: Uint8Array, o: PublishOptions) => this.publish(s, d, o);
    let abandoned = false;
    const raw = (m: JsMsg): RawDelivery => {
      const { headers, key } = readHeaders(m);
      return {
        subject: portSubject(this.layout, m.subject),
        data: m.data,
        headers,
        key,
        id: String(m.seq),
        deliveryCount: m.info.deliveryCount,
        ack: async () => this.coalescer.run(() => void (abandoned || m.ack())),
        nak: async (delayMs) => this.coalescer.run(() => void (abandoned || m.nak(delayMs))),
        working: () => this.coalescer.run(() => void (abandoned || m.working())),
      };
    };
    const loop = (async () => {
      for await (const m of messages) {
        await slots.acquire();
        if (abandoned) return;
        void deliver(raw(m), compiled, handler, publish, keepAlive)
          .catch(compiled.onError)
          .finally(() => slots.release());
      }
    })().catch(compiled.onError);
    const abandon = () => {
      abandoned = true;
      messages.stop();
    };
    this.stops.add(abandon);
    return {
      stop: async () => {
        this.stops.delete(abandon);
        messages.stop();
        await loop;
        await slots.idle();
      },
    };
  }

  async pending(subject: string, group: string): Promise<number | null> {
    const stream = streamName(this.layout, subject);
    try {
      const info = await this.jsm.consumers.info(stream, natsName(group));
      return info.num_pending + info.num_ack_pending;
    } catch {
      const info = await this.jsm.streams.info(stream).catch(() => undefined);
      return info === undefined ? 0 : info.state.messages;
    }
  }

  /** Deletes every stream of this broker's namespace (test clean-up). Refused without one. */
  async deleteNamespace(): Promise<number> {
    if (this.layout.namespace === '') throw new Error('deleteNamespace needs a namespace');
    const prefix = `${this.layout.streamPrefix}${natsName(this.layout.namespace)}_`;
    let deleted = 0;
    for await (const name of this.jsm.streams.names()) {
      if (name.startsWith(prefix)) deleted += (await this.jsm.streams.delete(name)) ? 1 : 0;
    }
    this.streams.clear();
    return deleted;
  }

  async close(): Promise<void> {
    for (const abandon of this.stops) abandon();
    this.stops.clear();
    this.coalescer.flush();
    this.publisher.close();
    if (!this.nc.isClosed()) await this.nc.close();
  }
}
