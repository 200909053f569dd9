import { describe, expect, it } from 'vitest';
import { LruCache } from './cache.js';

describe('LruCache', () => {
  it('evicts the least recently used entry past its capacity', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
    expect(cache.size).toBe(2);
  });

  it('replaces the value of an existing key without growing', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('a', 2);
    expect(cache.size).toBe(1);
    expect(cache.get('a')).toBe(2);
    cache.clear();
    expect(cache.size).toBe(0);
  });

  it('refuses a capacity below one', () => {
    expect(() => new LruCache(0)).toThrow(RangeError);
  });
});
