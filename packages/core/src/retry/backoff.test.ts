import { describe, expect, it } from 'vitest';
import { backoffDelay } from './backoff.js';

describe('backoffDelay', () => {
  it('doubles from the first delay by default', () => {
    const delays = [1, 2, 3, 4].map((retry) => backoffDelay(retry, { initialMs: 100 }));
    expect(delays).toEqual([100, 200, 400, 800]);
  });

  it('keeps the delay with factor 1 and grows by another factor', () => {
    expect(backoffDelay(5, { initialMs: 1000, factor: 1 })).toBe(1000);
    expect(backoffDelay(3, { initialMs: 10, factor: 3 })).toBe(90);
  });

  it('caps at maxMs, even when the delay overflows', () => {
    expect(backoffDelay(6, { initialMs: 50, maxMs: 1000 })).toBe(1000);
    expect(backoffDelay(5000, { initialMs: 50, maxMs: 1000 })).toBe(1000);
    expect(backoffDelay(5000, { initialMs: 50 })).toBe(Infinity);
  });

  it('spreads from 0 to the delay with full jitter', () => {
    const at = (random: number) =>
      backoffDelay(3, { initialMs: 100, jitter: 'full', random: () => random });
    expect([at(0), at(0.5), at(0.99)]).toEqual([0, 200, 396]);
  });

  it('spreads from half the delay to the delay with equal jitter, after the cap', () => {
    const at = (random: number) =>
      backoffDelay(9, { initialMs: 200, maxMs: 5000, jitter: 'equal', random: () => random });
    expect([at(0), at(0.5), at(0.9)]).toEqual([2500, 3750, 4750]);
  });

  it('draws from Math.random when no random is given', () => {
    const delay = backoffDelay(1, { initialMs: 100, jitter: 'equal' });
    expect(delay).toBeGreaterThanOrEqual(50);
    expect(delay).toBeLessThan(100);
  });
});
