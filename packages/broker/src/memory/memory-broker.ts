import {
  UnavailableError,
  type Broker,
  type ConsumeOptions,
  type MessageHandler,
  type PublishOptions,
  type Subscription,
} from '@weft/core';
import { checkSubject, compileConsumeOptions } from '../consume-options.js';
import { deliver, KeepAlive, Slots, type RawDelivery } from '../delivery.js';
import { MemoryBackend, type MemoryMember } from './backend.js';

const encoder = new TextEncoder();

/** Turns a payload into bytes. */
export function toBytes(data: Uint8Array | string): Uint8Array {
  return typeof data === 'string' ? encoder.encode(data) : data;
}

/**
 * The in-memory broker (the default): real groups, acks, redelivery on nack and on ack timeout,
 * and dead-lettering, inside one process. Messages do not survive the process. Clients made
 * with {@link MemoryBroker.connect} share the backend, like connections to one server.
 */
export class MemoryBroker implements Broker {
  readonly kind = 'memory';
  private readonly members = new Set<{ member: MemoryMember; subject: string; group: string }>();
  private closed = false;

  constructor(readonly backend: MemoryBackend = new MemoryBackend()) {}

  /** Another client of the same backend. */
  connect(): MemoryBroker {
    return new MemoryBroker(this.backend);
  }

  private checkOpen(): void {
    if (this.closed) {
      throw new UnavailableError('the broker connection is closed', {
        backend: 'memory',
        suggestion: 'open a new broker connection',
      });
    }
  }

  async publish(
    subject: string,
    data: Uint8Array | string,
    options: PublishOptions = {},
  ): Promise<void> {
    this.checkOpen();
    checkSubject(subject);
    this.backend.append(subject, toBytes(data), { ...options.headers }, options.key);
  }

  async consume(
    subject: string,
    options: ConsumeOptions,
    handler: MessageHandler,
  ): Promise<Subscription> {
    this.checkOpen();
    const compiled = compileConsumeOptions(subject, options);
    const slots = new Slots(compiled.concurrency);
    const keepAlive = new KeepAlive(compiled.ackTimeoutMs);
    const backend = this.backend;
    const publish = (s: string, d: Uint8Array, o: PublishOptions) => this.publish(s, d, o);
    const member: MemoryMember = {
      ackTimeoutMs: compiled.ackTimeoutMs,
      alive: true,
      room: () => compiled.concurrency - slots.busy,
      take(delivery: RawDelivery) {
        void slots.acquire();
        void deliver(delivery, compiled, handler, publish, keepAlive)
          .catch(compiled.onError)
          .finally(() => {
            slots.release();
            if (member.alive) backend.wake(subject, compiled.group);
          });
      },
    };
    const entry = { member, subject, group: compiled.group };
    this.members.add(entry);
    backend.join(subject, compiled.group, member, compiled.startFrom);
    return {
      stop: async () => {
        backend.leave(subject, compiled.group, member);
        await slots.idle();
        member.alive = false;
        this.members.delete(entry);
      },
    };
  }

  async pending(subject: string, group: string): Promise<number> {
    return this.backend.pending(subject, group);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const { member, subject, group } of this.members) {
      member.alive = false;
      this.backend.leave(subject, group, member);
    }
    this.members.clear();
  }
}
