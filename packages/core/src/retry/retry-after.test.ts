import { describe, expect, it } from 'vitest';
import { parseRetryAfter, retryAfterMs } from './retry-after.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');

describe('parseRetryAfter', () => {
  it('reads delay seconds, decimals included, as ms', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(' 120 ')).toBe(120_000);
    expect(parseRetryAfter('1.5')).toBe(1500);
    expect(parseRetryAfter('0')).toBe(0);
  });

  it('reads an HTTP date as the ms from now, and a past one as 0', () => {
    const inSix = new Date(NOW + 6000).toUTCString();
    expect(parseRetryAfter(inSix, { now: NOW })).toBe(6000);
    expect(parseRetryAfter(new Date(NOW - 6000).toUTCString(), { now: NOW })).toBe(0);
    // The obsolete RFC 850 form, which a recipient must still read.
    expect(parseRetryAfter('Thursday, 01-Jan-26 00:00:06 GMT', { now: NOW })).toBe(6000);
  });

  it('is undefined without a value or with one of neither form', () => {
    for (const value of [undefined, null, '', '  ', 'soon', [] as string[]])
      expect(parseRetryAfter(value, { now: NOW })).toBeUndefined();
    for (const value of ['-1', '7 days', '2026-01-01T00:00:10Z'])
      expect(parseRetryAfter(value, { now: NOW })).toBeUndefined();
  });

  it('takes the first of a repeated header', () => {
    expect(parseRetryAfter(['2', '9'])).toBe(2000);
  });

  it('is undefined over maxMs, so the caller backs off on its own', () => {
    expect(parseRetryAfter('5', { maxMs: 5000 })).toBe(5000);
    expect(parseRetryAfter('6', { maxMs: 5000 })).toBeUndefined();
    const late = new Date(NOW + 60_000).toUTCString();
    expect(parseRetryAfter(late, { now: NOW, maxMs: 5000 })).toBeUndefined();
  });
});

describe('retryAfterMs', () => {
  const headers =
    (values: Record<string, string>) =>
    (name: string): string | undefined =>
      values[name];

  it('prefers retry-after-ms to retry-after', () => {
    expect(retryAfterMs(headers({ 'retry-after-ms': '250', 'retry-after': '3' }))).toBe(250);
    expect(retryAfterMs(headers({ 'retry-after-ms': '12.5' }))).toBe(12.5);
  });

  it('falls back to retry-after when retry-after-ms is missing, unreadable or too long', () => {
    expect(retryAfterMs(headers({ 'retry-after': '3' }))).toBe(3000);
    expect(retryAfterMs(headers({ 'retry-after-ms': 'x', 'retry-after': '3' }))).toBe(3000);
    const long = headers({ 'retry-after-ms': '9000', 'retry-after': '2' });
    expect(retryAfterMs(long, { maxMs: 5000 })).toBe(2000);
  });

  it('reads an HTTP date in retry-after', () => {
    const at = headers({ 'retry-after': new Date(NOW + 4000).toUTCString() });
    expect(retryAfterMs(at, { now: NOW })).toBe(4000);
  });

  it('is undefined when neither header asks for a wait within maxMs', () => {
    expect(retryAfterMs(headers({}))).toBeUndefined();
    const long = headers({ 'retry-after-ms': '9000', 'retry-after': '60' });
    expect(retryAfterMs(long, { maxMs: 5000 })).toBeUndefined();
  });
});
