import type { BucketSpec, TokenResult } from '@weft/core';

/** The state of one token bucket. */
export interface BucketState {
  tokens: number;
  /** Epoch ms of the last update. */
  updatedMs: number;
}

/**
 * One step of a token bucket: refills `state` up to `nowMs` (never backwards: a clock that went
 * back refills nothing), then takes one token if there is one. Returns the new state and the
 * answer; a full bucket starts at `capacity`.
 */
export function takeFromBucket(
  state: BucketState | undefined,
  spec: BucketSpec,
  nowMs: number,
): { state: BucketState; result: TokenResult } {
  const previous = state ?? { tokens: spec.capacity, updatedMs: nowMs };
  const elapsed = Math.max(0, nowMs - previous.updatedMs);
  const tokens = Math.min(spec.capacity, previous.tokens + elapsed * spec.refillPerMs);
  const updatedMs = Math.max(previous.updatedMs, nowMs);
  if (tokens >= 1) {
    return { state: { tokens: tokens - 1, updatedMs }, result: { allowed: true, retryAfterMs: 0 } };
  }
  const retryAfterMs = Math.ceil((1 - tokens) / spec.refillPerMs);
  return { state: { tokens, updatedMs }, result: { allowed: false, retryAfterMs } };
}

/** In-process token buckets by key (used where no database shares them). */
export class LocalBuckets {
  private readonly buckets = new Map<string, BucketState>();

  /** Takes a token from bucket `key`. */
  take(key: string, spec: BucketSpec, nowMs: number): TokenResult {
    const { state, result } = takeFromBucket(this.buckets.get(key), spec, nowMs);
    this.buckets.set(key, state);
    return result;
  }

  /** Drops buckets that are full again (idle for a whole refill). */
  prune(nowMs: number, spec: (key: string) => BucketSpec | undefined): void {
    for (const [key, state] of this.buckets) {
      const s = spec(key);
      if (!s || state.tokens + (nowMs - state.updatedMs) * s.refillPerMs >= s.capacity) {
        this.buckets.delete(key);
      }
    }
  }
}
