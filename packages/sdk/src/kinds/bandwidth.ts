import { CONNECTOR_DEFAULTS, systemClock, ValidationError, type Clock } from '@weft/core';
import { parseByteRate } from '@weft/engine';
import type { ActionRun } from './action-run.js';

/** The smallest burst of a {@link TokenBucket}, in bytes: 64 KiB (one read of a socket). */
export const MIN_BURST_BYTES = 64 * 1024;

/** The share of a second's worth of bytes a {@link TokenBucket} may let through at once. */
export const BURST_SECONDS = 0.1;

/**
 * A token bucket of bytes (docs/workflow-language.md#connector-runtime): `rate` tokens a second
 * flow in, up to a burst of a tenth of a second's worth or {@link MIN_BURST_BYTES}, whichever is
 * larger; the bucket starts full. {@link take} waits, on the clock, until the bytes asked for
 * are in the bucket; a request larger than the burst is taken in pieces. Time slept past the
 * need (a timer's granularity) is credited, so the average rate holds at every rate.
 */
export class TokenBucket {
  /** The largest number of bytes let through without waiting. */
  readonly burst: number;
  /** Times {@link take} had to wait. */
  waits = 0;
  /** Milliseconds {@link take} asked the clock to sleep, in all. */
  waitedMs = 0;
  private tokens: number;
  private last: number;

  /** A bucket of `rate` bytes a second (a positive number) on `clock`. */
  constructor(
    readonly rate: number,
    private readonly clock: Clock = systemClock,
  ) {
    if (!(rate > 0)) throw new RangeError(`a bandwidth must be positive, got ${rate}`);
    this.burst = Math.max(MIN_BURST_BYTES, Math.floor(rate * BURST_SECONDS));
    this.tokens = this.burst;
    this.last = clock.now();
  }

  /** Takes `bytes` at once when the bucket holds them; false (and nothing taken) otherwise. */
  tryTake(bytes: number): boolean {
    this.refill();
    if (this.tokens < bytes) return false;
    this.tokens -= bytes;
    return true;
  }

  /**
   * Waits until `bytes` went through the bucket. Rejects with the signal's reason as soon as
   * `signal` is aborted (before waiting, or during a wait).
   */
  async take(bytes: number, signal?: AbortSignal): Promise<void> {
    let left = bytes;
    while (left > 0) {
      signal?.throwIfAborted();
      const piece = Math.min(left, this.burst);
      this.refill();
      if (this.tokens < piece) {
        const ms = Math.ceil(((piece - this.tokens) * 1000) / this.rate);
        this.waits += 1;
        this.waitedMs += ms;
        await this.clock.sleep(ms, signal);
        signal?.throwIfAborted();
        this.refill();
      }
      // The sleep was long enough (rounded up), or the clock went back: never below zero.
      this.tokens = Math.max(0, this.tokens - piece);
      left -= piece;
    }
  }

  private refill(): void {
    const now = this.clock.now();
    const elapsed = Math.max(0, now - this.last);
    this.last = now;
    this.tokens = Math.min(this.burst, this.tokens + (elapsed * this.rate) / 1000);
  }
}

/**
 * The bandwidth of one `http` call, in bytes per second: the step's `runtime.network.bandwidth`,
 * else the connector's `connector.runtime.network.bandwidth`, else
 * {@link CONNECTOR_DEFAULTS}.bandwidthBytesPerSecond (10MB/s). A rate that does not parse, or is over 100MB/s, is
 * `VALIDATION` naming the field.
 */
export function bandwidthOf(run: ActionRun): number {
  const step = run.stepRuntime?.network?.bandwidth;
  if (step !== undefined) return parseBandwidth(step, 'runtime.network.bandwidth', run.call);
  const text = run.connector.definition.connector.runtime?.network?.bandwidth;
  if (text === undefined) return CONNECTOR_DEFAULTS.bandwidthBytesPerSecond;
  return parseBandwidth(text, 'connector.runtime.network.bandwidth', run.call);
}

function parseBandwidth(text: string, field: string, call: string): number {
  const rate = parseByteRate(text);
  if (rate === undefined || !(rate > 0)) {
    throw new ValidationError(`${call}: ${field} expects a rate such as "10MB/s", got "${text}"`, {
      field,
      constraint: 'quantity',
    });
  }
  if (rate > CONNECTOR_DEFAULTS.maxBandwidthBytesPerSecond) {
    throw new ValidationError(`${call}: ${field} ${text} is over the limit of 100MB/s`, {
      field,
      constraint: 'limit',
    });
  }
  return rate;
}

/**
 * A request body sent through `bucket`: a stream of pieces of at most 16 KiB, each let out once
 * the bucket gave its bytes; aborting `signal` errors the stream at once.
 */
export function pacedBody(
  body: Uint8Array,
  bucket: TokenBucket,
  signal: AbortSignal,
): ReadableStream<Uint8Array> {
  const PIECE = 16 * 1024;
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (offset >= body.byteLength) return controller.close();
      const piece = body.subarray(offset, offset + PIECE);
      await bucket.take(piece.byteLength, signal);
      offset += piece.byteLength;
      controller.enqueue(piece);
    },
  });
}
