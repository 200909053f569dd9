import { describe, expect, it } from 'vitest';
import { clientAddress, compileAddressList, parseAddress } from './ip-allowlist.js';
import { checkTimestamp, parseTimestamp } from './timestamp.js';

describe('request timestamps', () => {
  const now = Date.UTC(2026, 0, 1, 12);

  it('reads Unix seconds, Unix milliseconds and ISO 8601', () => {
    expect(parseTimestamp(String(now / 1000))).toBe(now);
    expect(parseTimestamp(String(now))).toBe(now);
    expect(parseTimestamp('2026-01-01T12:00:00Z')).toBe(now);
    expect(parseTimestamp('2026-01-01T13:00:00+01:00')).toBe(now);
    for (const bad of ['', 'yesterday', '12.5', '-5', '2026-01-01', '0x10']) {
      expect(parseTimestamp(bad)).toBeUndefined();
    }
  });

  it('refuses a stale or future timestamp outside the window, accepts the edge', () => {
    const window = 300_000;
    expect(checkTimestamp(String(now / 1000 - 300), now, window)).toBeUndefined();
    expect(checkTimestamp(String(now / 1000 - 301), now, window)).toBe('stale_timestamp');
    expect(checkTimestamp(String(now / 1000 + 301), now, window)).toBe('stale_timestamp');
    expect(checkTimestamp(undefined, now, window)).toBe('missing_timestamp');
    expect(checkTimestamp('soon', now, window)).toBe('malformed_timestamp');
  });
});

describe('IP allowlists', () => {
  const list = compileAddressList(['10.0.0.0/8', '192.168.1.7', '2001:db8::/32', '::1']);

  it('matches IPv4 and IPv6 addresses and ranges', () => {
    expect(list.contains(parseAddress('10.20.30.40')!)).toBe(true);
    expect(list.contains(parseAddress('11.0.0.1')!)).toBe(false);
    expect(list.contains(parseAddress('192.168.1.7')!)).toBe(true);
    expect(list.contains(parseAddress('192.168.1.8')!)).toBe(false);
    expect(list.contains(parseAddress('2001:db8:1::5')!)).toBe(true);
    expect(list.contains(parseAddress('2001:db9::5')!)).toBe(false);
    expect(list.contains(parseAddress('::1')!)).toBe(true);
  });

  it('normalises IPv4-mapped IPv6 addresses and ranges', () => {
    expect(parseAddress('::ffff:10.1.2.3')!.toString()).toBe('10.1.2.3');
    expect(list.contains(parseAddress('::ffff:10.1.2.3')!)).toBe(true);
    const mapped = compileAddressList(['::ffff:172.16.0.0/108']);
    expect(mapped.contains(parseAddress('172.16.5.5')!)).toBe(true);
    expect(mapped.contains(parseAddress('172.32.0.1')!)).toBe(false);
  });

  it('refuses entries that are not addresses', () => {
    expect(() => compileAddressList(['10.0.0.0/33'])).toThrow(/10.0.0.0\/33/);
    expect(() => compileAddressList(['example.com'])).toThrow(/example.com/);
  });
});

describe('client address behind proxies', () => {
  const proxies = compileAddressList(['10.0.0.1', '10.0.0.2']);

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', () => {
    expect(clientAddress('203.0.113.9', '192.168.1.7', proxies)!.toString()).toBe('203.0.113.9');
    expect(clientAddress('203.0.113.9', '192.168.1.7', undefined)!.toString()).toBe('203.0.113.9');
  });

  it('reads X-Forwarded-For right to left through trusted proxies', () => {
    expect(clientAddress('10.0.0.1', '192.168.1.7, 203.0.113.9', proxies)!.toString()).toBe(
      '203.0.113.9',
    );
    expect(clientAddress('10.0.0.1', '203.0.113.9, 10.0.0.2', proxies)!.toString()).toBe(
      '203.0.113.9',
    );
    expect(
      clientAddress('::ffff:10.0.0.1', ['198.51.100.1', '10.0.0.2'], proxies)!.toString(),
    ).toBe('198.51.100.1');
  });

  it('gives no address when the hop next to a trusted proxy is garbage', () => {
    expect(clientAddress('10.0.0.1', '1.2.3.4, not-an-ip', proxies)).toBeUndefined();
  });
});
