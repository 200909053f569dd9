import {
  DEAD_LETTER_HEADERS,
  type BrokerHeaders,
  type BrokerMessage,
  type MessageHandler,
  type PublishOptions,
} from '@weft/core';
import type { CompiledConsumeOptions } from './consume-options.js';

/** One delivery as an implementation sees it: the primitive settle operations of its broker. */
export interface RawDelivery {
  readonly subject: string;
  readonly data: Uint8Array;
  readonly headers: BrokerHeaders;
  readonly key: string | undefined;
  readonly id: string;
  readonly deliveryCount: number;
  /** Acknowledges for good. */
  ack(): Promise<void>;
  /** Asks for redelivery after `delayMs`. */
  nak(delayMs: number): Promise<void>;
  /** Resets the ack timeout (the handler is still running). */
  working(): void;
}

/** Publishes a message (the dead-letter copy). */
export type Publish = (subject: string, data: Uint8Array, options: PublishOptions) => Promise<void>;

const decoder = new TextDecoder();

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs the handler on one delivery with the port's semantics: a delivery past `maxDeliveries`
 * is dead-lettered without running; resolving acks, throwing nacks (dead-letters on the last
 * allowed delivery); the ack timeout is renewed while the handler runs; settling twice is a no-op.
 */
export async function deliver(
  raw: RawDelivery,
  options: CompiledConsumeOptions,
  handler: MessageHandler,
  publish: Publish,
  keepAlive: KeepAlive,
): Promise<void> {
  let settled = false;
  const deadLetter = async (reason: string): Promise<void> => {
    const headers: Record<string, string> = {
      ...raw.headers,
      [DEAD_LETTER_HEADERS.subject]: raw.subject,
      [DEAD_LETTER_HEADERS.group]: options.group,
      [DEAD_LETTER_HEADERS.reason]: reason.slice(0, 1024),
      [DEAD_LETTER_HEADERS.deliveries]: String(raw.deliveryCount),
    };
    try {
      await publish(options.deadLetterSubject, raw.data, { headers, key: raw.key });
    } catch (error) {
      // Not dead-lettered: let it come back; it is dead-lettered again on that delivery.
      options.onError(error);
      await raw.nak(options.retryDelayMs);
      return;
    }
    await raw.ack();
    try {
      await options.onDeadLetter?.(message, reason);
    } catch (error) {
      options.onError(error);
    }
  };
  const nack = async (delayMs: number | undefined, reason: string): Promise<void> => {
    if (raw.deliveryCount >= options.maxDeliveries) {
      await deadLetter(`${reason} (delivery ${raw.deliveryCount} of ${options.maxDeliveries})`);
    } else {
      await raw.nak(delayMs ?? options.retryDelayMs);
    }
  };
  const once =
    <A extends unknown[]>(fn: (...args: A) => Promise<void>) =>
    async (...args: A): Promise<void> => {
      if (settled) return;
      settled = true;
      await fn(...args);
    };
  const message: BrokerMessage = {
    subject: raw.subject,
    data: raw.data,
    headers: raw.headers,
    key: raw.key,
    id: raw.id,
    deliveryCount: raw.deliveryCount,
    text: () => decoder.decode(raw.data),
    ack: once(() => raw.ack()),
    nack: once((delayMs?: number) => nack(delayMs, 'nacked by the consumer')),
    deadLetter: once((reason: string) => deadLetter(reason)),
  };
  if (raw.deliveryCount > options.maxDeliveries) {
    await message.deadLetter(`not settled after ${options.maxDeliveries} deliveries`);
    return;
  }
  keepAlive.add(raw);
  try {
    await handler(message);
    await message.ack();
  } catch (error) {
    options.onError(error);
    if (!settled) {
      settled = true;
      await nack(undefined, errorText(error));
    }
  } finally {
    keepAlive.delete(raw);
  }
}

/**
 * Renews the ack timeout of every delivery whose handler is running, with one timer per
 * consumer (every third of the ack timeout) rather than one per message.
 */
export class KeepAlive {
  private readonly running = new Set<RawDelivery>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly ackTimeoutMs: number) {}

  add(raw: RawDelivery): void {
    this.running.add(raw);
    if (this.timer === undefined) {
      this.timer = setInterval(
        () => {
          for (const delivery of this.running) delivery.working();
        },
        Math.max(50, this.ackTimeoutMs / 3),
      );
      this.timer.unref();
    }
  }

  delete(raw: RawDelivery): void {
    this.running.delete(raw);
    if (this.running.size === 0 && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}

/** A counting semaphore: at most `size` holders at once, served first come first served. */
export class Slots {
  private free: number;
  private queue: (() => void)[] = [];
  private head = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly size: number) {
    this.free = size;
  }

  /** Resolves once a slot is taken. */
  acquire(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.queue.push(resolve));
  }

  /** Gives a slot back. */
  release(): void {
    if (this.head < this.queue.length) {
      const next = this.queue[this.head++]!;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
      return next();
    }
    this.free++;
    if (this.free === this.size) for (const waiter of this.idleWaiters.splice(0)) waiter();
  }

  /** Number of slots held. */
  get busy(): number {
    return this.size - this.free;
  }

  /** Resolves when no slot is held. */
  idle(): Promise<void> {
    if (this.free === this.size) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }
}
