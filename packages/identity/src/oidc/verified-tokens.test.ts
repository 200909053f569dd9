import { describe, expect, it } from 'vitest';
import { keyPrincipal } from '@weft/core';
import { VerifiedTokens } from './verified-tokens.js';

const alice = keyPrincipal({ keyId: 'a', owner: 'alice' });

describe('VerifiedTokens', () => {
  it('answers a remembered token until it expires', () => {
    const cache = new VerifiedTokens(10);
    cache.set('t', alice, 2000, 1);
    expect(cache.get('t', 1999, 1)).toBe(alice);
    expect(cache.get('t', 2000, 1)).toBeUndefined();
    expect(cache.get('t', 1000, 1)).toBeUndefined();
  });

  it('forgets a token verified under an earlier key set', () => {
    const cache = new VerifiedTokens(10);
    cache.set('t', alice, 2000, 1);
    expect(cache.get('t', 0, 2)).toBeUndefined();
  });

  it('keeps at most its size, dropping the oldest first; size 0 keeps nothing', () => {
    const cache = new VerifiedTokens(2);
    cache.set('a', alice, 9, 0);
    cache.set('b', alice, 9, 0);
    cache.set('c', alice, 9, 0);
    expect([cache.get('a', 0, 0), cache.get('b', 0, 0), cache.get('c', 0, 0)]).toEqual([
      undefined,
      alice,
      alice,
    ]);
    const none = new VerifiedTokens(0);
    none.set('a', alice, 9, 0);
    expect(none.get('a', 0, 0)).toBeUndefined();
  });
});
