import { describe, expect, it } from 'vitest';
import { AnswerCache } from './answer-cache.js';
import { TtlCache } from './cache.js';

describe('AnswerCache', () => {
  const make = (ttlMs = 1000) => {
    let now = 0;
    const cache = new AnswerCache(ttlMs, 100, () => now);
    return { cache, advance: (ms: number) => (now += ms) };
  };

  it('keeps answers until their time to live runs out', () => {
    const { cache, advance } = make();
    cache.keepSearch('q', 'S', cache.searchStamp());
    cache.keepDetail('a', 'a/', 'A', cache.detailStamp('a'));
    expect(cache.search('q')).toBe('S');
    expect(cache.detail('a', 'a/')).toBe('A');
    advance(1000);
    expect(cache.search('q')).toBeUndefined();
    expect(cache.detail('a', 'a/')).toBeUndefined();
  });

  it('drops every search answer and the changed slug details on a change, keeping other details', () => {
    const { cache } = make();
    cache.keepSearch('q', 'S', cache.searchStamp());
    cache.keepDetail('a', 'a/', 'A', cache.detailStamp('a'));
    cache.keepDetail('b', 'b/', 'B', cache.detailStamp('b'));
    cache.changed('a');
    expect(cache.search('q')).toBeUndefined();
    expect(cache.detail('a', 'a/')).toBeUndefined();
    expect(cache.detail('b', 'b/')).toBe('B');
  });

  it('drops only the details of slugs whose download counts were written', () => {
    const { cache } = make();
    cache.keepSearch('q', 'S', cache.searchStamp());
    cache.keepDetail('a', 'a/', 'A', cache.detailStamp('a'));
    cache.keepDetail('b', 'b/', 'B', cache.detailStamp('b'));
    const readingA = cache.detailStamp('a');
    cache.countsWritten(['a']);
    expect(cache.search('q')).toBe('S');
    expect(cache.detail('a', 'a/')).toBeUndefined();
    expect(cache.detail('b', 'b/')).toBe('B');
    cache.keepDetail('a', 'a/', 'stale', readingA);
    expect(cache.detail('a', 'a/')).toBeUndefined();
  });

  it('keeps schema bytes through written counts and drops them on a change of their slug', () => {
    const { cache } = make();
    cache.keepSchema('a', 'a/1', 'bytes', cache.schemaStamp('a'));
    cache.keepSchema('b', 'b/1', 'other', cache.schemaStamp('b'));
    cache.countsWritten(['a']);
    expect(cache.schema('a', 'a/1')).toBe('bytes');
    cache.changed('a');
    expect(cache.schema('a', 'a/1')).toBeUndefined();
    expect(cache.schema('b', 'b/1')).toBe('other');
  });

  it('drops everything, and keeps nothing read before, when any plugin may have changed', () => {
    const { cache } = make();
    const stamps = {
      search: cache.searchStamp(),
      a: cache.detailStamp('a'),
      s: cache.schemaStamp('a'),
    };
    cache.keepSearch('q', 'S', stamps.search);
    cache.keepDetail('a', 'a/', 'A', stamps.a);
    cache.keepSchema('a', 'a/1', 'bytes', stamps.s);
    cache.changedAll();
    expect([cache.search('q'), cache.detail('a', 'a/'), cache.schema('a', 'a/1')]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    cache.keepDetail('a', 'a/', 'stale', stamps.a);
    cache.keepSchema('a', 'a/1', 'stale', stamps.s);
    expect([cache.detail('a', 'a/'), cache.schema('a', 'a/1')]).toEqual([undefined, undefined]);
  });

  it('never keeps an answer whose read began before a change', () => {
    const { cache } = make();
    const searchStamp = cache.searchStamp();
    const detailStamp = cache.detailStamp('a');
    cache.changed('a');
    cache.keepSearch('q', 'stale', searchStamp);
    cache.keepDetail('a', 'a/', 'stale', detailStamp);
    expect(cache.search('q')).toBeUndefined();
    expect(cache.detail('a', 'a/')).toBeUndefined();
    cache.keepDetail('a', 'a/', 'fresh', cache.detailStamp('a'));
    expect(cache.detail('a', 'a/')).toBe('fresh');
  });

  it('keeps nothing when its time to live is 0', () => {
    const { cache } = make(0);
    cache.keepSearch('q', 'S', cache.searchStamp());
    expect(cache.search('q')).toBeUndefined();
  });
});

describe('TtlCache', () => {
  it('spreads the expiry of entries kept together over the last quarter of the time to live', () => {
    let now = 0;
    const cache = new TtlCache<number>(1000, 1000, () => now);
    for (let i = 0; i < 200; i++) cache.set(`k${i}`, i);
    const alive = () =>
      Array.from({ length: 200 }, (_, i) => cache.get(`k${i}`)).filter((v) => v !== undefined);
    now = 749;
    expect(alive()).toHaveLength(200);
    now = 900;
    const left = alive().length;
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(200);
    now = 1000;
    expect(alive()).toHaveLength(0);
  });
});
