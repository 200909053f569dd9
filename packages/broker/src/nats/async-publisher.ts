import { createInbox, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import { UnavailableError } from '@weft/core';
import type { Coalescer } from './coalescer.js';

interface Waiting {
  resolve(): void;
  reject(error: Error): void;
  deadline: number;
}

const decoder = new TextDecoder();

function failure(message: string): UnavailableError {
  return new UnavailableError(message, {
    backend: 'nats',
    suggestion: 'check that nats-server runs with JetStream and is reachable',
  });
}

/**
 * JetStream publishing without a request object per message: every publish carries a reply
 * subject under one wildcard inbox subscription, and the stream's acks are matched back by
 * token. One sweep timer fails publishes whose ack did not come in time (the caller retries).
 */
export class AsyncPublisher {
  private readonly prefix = createInbox();
  private readonly waiting = new Map<string, Waiting>();
  private next = 0;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly nc: NatsConnection,
    private readonly coalescer: Coalescer,
    private readonly timeoutMs = 5000,
  ) {
    nc.subscribe(`${this.prefix}.*`, {
      callback: (error, msg) => {
        if (error !== null) return;
        const token = msg.subject.slice(this.prefix.length + 1);
        const waiter = this.waiting.get(token);
        if (waiter === undefined) return;
        this.waiting.delete(token);
        const status = msg.headers?.code ?? 0;
        if (status >= 300 || (status === 0 && msg.data.length === 0)) {
          return waiter.reject(failure(`JetStream refused the publish (status ${status})`));
        }
        const text = decoder.decode(msg.data);
        if (text.includes('"error"')) {
          const detail = (JSON.parse(text) as { error?: { description?: string } }).error;
          return waiter.reject(failure(`JetStream refused the publish: ${detail?.description}`));
        }
        waiter.resolve();
      },
    });
    this.sweeper = setInterval(() => this.sweep(), Math.max(100, timeoutMs / 5));
    this.sweeper.unref();
  }

  private sweep(): void {
    const now = Date.now();
    for (const [token, waiter] of this.waiting) {
      if (waiter.deadline > now) break; // insertion order is deadline order
      this.waiting.delete(token);
      waiter.reject(failure(`no JetStream ack within ${this.timeoutMs} ms`));
    }
  }

  /** Publishes and resolves on the stream's ack. */
  publish(subject: string, data: Uint8Array, headers: MsgHdrs): Promise<void> {
    const token = (this.next++).toString(36);
    return new Promise<void>((resolve, reject) => {
      this.waiting.set(token, { resolve, reject, deadline: Date.now() + this.timeoutMs });
      this.coalescer.run(() => {
        try {
          this.nc.publish(subject, data, { reply: `${this.prefix}.${token}`, headers });
        } catch (error) {
          this.waiting.delete(token);
          reject(error);
        }
      });
    });
  }

  /** Fails every publish still waiting (the connection is closing). */
  close(): void {
    clearInterval(this.sweeper);
    for (const waiter of this.waiting.values()) waiter.reject(failure('connection closed'));
    this.waiting.clear();
  }
}
