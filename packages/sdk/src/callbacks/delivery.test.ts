import { describe, expect, it } from 'vitest';
import type { CallbackAttempt, CallbackState } from '@weft/core';
import { ManualClock } from '@weft/core/testing';
import { DEFAULT_CALLBACK_POLICY, deliverCallback, type CallbackOutcome } from './delivery.js';

const start: CallbackState = {
  status: 'pending',
  attempts: 0,
  last_status: null,
  last_error: null,
  webhook_id: 'msg_1',
  delivered_at: null,
};

/** Delivers with answers in order (an `undefined` answer is a network error). */
async function deliver(answers: Array<number | undefined | CallbackOutcome>) {
  const clock = new ManualClock();
  const attempts: CallbackAttempt[] = [];
  const state = await deliverCallback({
    state: start,
    policy: DEFAULT_CALLBACK_POLICY,
    clock,
    attempt: () => {
      const answer = answers.shift();
      if (typeof answer === 'object') return Promise.resolve(answer);
      return Promise.resolve(
        answer === undefined
          ? { status: null, error: 'ECONNREFUSED' }
          : { status: answer, error: answer < 300 ? null : `HTTP ${answer}` },
      );
    },
    record: (attempt) => void attempts.push(attempt),
  });
  return { state, attempts, sleeps: clock.sleeps };
}

describe('deliverCallback (the server’s and the SDK’s callback retries)', () => {
  it('retries network errors and 5xx with doubling delays until a 2xx', async () => {
    const { state, attempts, sleeps } = await deliver([undefined, 503, 500, 204]);
    expect(state).toMatchObject({ status: 'delivered', attempts: 4, last_status: 204 });
    expect(attempts.map((a) => a.status)).toEqual([null, 503, 500, 204]);
    expect(sleeps).toEqual([1000, 2000, 4000]);
  });

  it('takes the receiver’s Retry-After over the backoff, capped at maxDelayMs', async () => {
    const { sleeps } = await deliver([
      { status: 429, error: 'HTTP 429', retryAfterMs: 0 },
      { status: 503, error: 'HTTP 503', retryAfterMs: 3_600_000 },
      200,
    ]);
    expect(sleeps).toEqual([0, DEFAULT_CALLBACK_POLICY.maxDelayMs]);
  });

  it('gives up at once on another 4xx, and after 8 attempts of 5xx', async () => {
    expect((await deliver([404])).state).toMatchObject({ status: 'failed', attempts: 1 });
    const many = await deliver(Array<number>(10).fill(500));
    expect(many.state).toMatchObject({ status: 'failed', attempts: 8, last_error: 'HTTP 500' });
    expect(many.sleeps).toHaveLength(7);
  });
});
