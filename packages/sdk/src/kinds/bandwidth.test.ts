import { CONNECTOR_DEFAULTS, systemClock } from '@weft/core';
import { ManualClock } from '@weft/core/testing';
import { describe, expect, it } from 'vitest';
import type { ActionRun } from './action-run.js';
import { bandwidthOf, MIN_BURST_BYTES, pacedBody, TokenBucket } from './bandwidth.js';
import { thrown } from '../test-support/context.js';

const MB = 1_000_000;
const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

describe('TokenBucket', () => {
  it('lets a tenth of a second of bytes through at once, then waits for the rest', async () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket(MB, clock);
    expect(bucket.burst).toBe(100_000);
    await bucket.take(100_000);
    expect(clock.sleeps).toEqual([]);
    await bucket.take(50_000);
    expect(clock.sleeps).toEqual([50]);
  });

  it('paces 3 MB read in 64 KiB chunks at 1MB/s to 2.9 s of waits', async () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket(MB, clock);
    for (let left = 3 * MB; left > 0; left -= 65_536) await bucket.take(Math.min(65_536, left));
    // 3 MB less the first burst, at 1 MB a second; each wait rounds up to a whole millisecond.
    expect(sum(clock.sleeps)).toBeGreaterThanOrEqual(2900);
    expect(sum(clock.sleeps)).toBeLessThanOrEqual(2900 + bucket.waits);
    expect(bucket.waitedMs).toBe(sum(clock.sleeps));
  });

  it('takes a request larger than the burst in pieces no larger than the burst', async () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket(MB, clock);
    await bucket.take(1_000_000);
    expect(sum(clock.sleeps)).toBe(900);
    expect(Math.max(...clock.sleeps)).toBeLessThanOrEqual(100);
  });

  it('credits time that passed between takes, up to the burst', async () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket(MB, clock);
    await bucket.take(100_000);
    clock.advance(60_000);
    await bucket.take(100_000);
    expect(clock.sleeps).toEqual([]);
    expect(bucket.tryTake(1)).toBe(false);
  });

  it('has a burst of at least 64 KiB at low rates', () => {
    expect(new TokenBucket(1000, new ManualClock()).burst).toBe(MIN_BURST_BYTES);
  });

  it('refuses a rate that is not positive', () => {
    expect(() => new TokenBucket(0)).toThrow(RangeError);
  });

  it('rejects with the reason of an aborted signal without waiting', async () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket(1000, clock);
    const reason = new Error('timed out');
    await expect(bucket.take(1, AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(clock.sleeps).toEqual([]);
  });

  it('stops a wait of an hour as soon as the signal is aborted', async () => {
    const bucket = new TokenBucket(1, systemClock);
    const controller = new AbortController();
    const waiting = bucket.take(MIN_BURST_BYTES + 3600, controller.signal);
    const reason = new Error('canceled');
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
  });
});

describe('pacedBody', () => {
  it('gives every byte, in order, at the pace of the bucket', async () => {
    const clock = new ManualClock();
    const bytes = Uint8Array.from({ length: 300_000 }, (_, i) => i % 251);
    const chunks: Uint8Array[] = [];
    const bucket = new TokenBucket(100_000, clock);
    for await (const chunk of pacedBody(bytes, bucket, new AbortController().signal)) {
      chunks.push(chunk);
    }
    expect(Buffer.concat(chunks).equals(Buffer.from(bytes))).toBe(true);
    expect(sum(clock.sleeps)).toBeGreaterThanOrEqual(2344); // (300,000 − 65,536) / 100,000 s
  });
});

describe('bandwidthOf', () => {
  const runWith = (runtime?: object) =>
    ({ call: 'api.get', connector: { definition: { connector: { runtime } } } }) as ActionRun;

  it('is 10MB/s (10^7 bytes a second) when the connector sets none', () => {
    expect(bandwidthOf(runWith())).toBe(CONNECTOR_DEFAULTS.bandwidthBytesPerSecond);
    expect(CONNECTOR_DEFAULTS.bandwidthBytesPerSecond).toBe(10 * MB);
  });

  it("is the connector's network.bandwidth, with decimal and binary units", () => {
    expect(bandwidthOf(runWith({ network: { bandwidth: '1MB/s' } }))).toBe(MB);
    expect(bandwidthOf(runWith({ network: { bandwidth: '512KiB/s' } }))).toBe(512 * 1024);
  });

  it.each([
    ['10MB', 'quantity'],
    ['200MB/s', 'limit'],
  ])('refuses "%s" as VALIDATION (%s)', (bandwidth, constraint) => {
    const error = thrown(() => bandwidthOf(runWith({ network: { bandwidth } })));
    expect(error).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'connector.runtime.network.bandwidth', constraint },
    });
  });
});
