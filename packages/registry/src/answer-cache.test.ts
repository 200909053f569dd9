import { describe, expect, it } from 'vitest';
import { AnswerCache } from './answer-cache.js';
import { TtlCache } from './cache.js';

describe('AnswerCache', () => {
  const make = (ttlMs = 1000) => {
    let now = 0;
    const cache = new AnswerCache(ttlMs, 100, () => now);
    return { cache, advance: (ms: number) => (now += ms) };
  };

  it('keeps answers for their time to live, then as stale for one more, then forgets them', () => {
    const { cache, advance } = make();
    cache.keepSearch('q', 'S', cache.searchStamp());
    cache.keepDetail('a', 'a/', 'A', cache.detailStamp('a'));
    cache.keepSchema('a', 'a/1', 'bytes', cache.schemaStamp('a'));
    expect(cache.search('q')).toEqual({ value: 'S', stale: false });
    expect(cache.detail('a', 'a/')).toEqual({ value: 'A', stale: false });
    advance(1000);
    expect(cache.search('q')).toEqual({ value: 'S', stale: true });
    expect(cache.detail('a', 'a/')).toEqual({ value: 'A', stale: true });
    expect(cache.schema('a', 'a/1')).toEqual({ value: 'bytes', stale: true });
    // Read again: live once more.
    cache.keepSearch('q', 'S2', cache.searchStamp());
    expect(cache.search('q')).toEqual({ value: 'S2', stale: false });
    advance(1000);
    expect(cache.detail('a', 'a/')).toBeUndefined();
    expect(cache.schema('a', 'a/1')).toBeUndefined();
    expect(cache.search('q')).toEqual({ value: 'S2', stale: true });
  });

  it('drops a stale answer on a change, and on request (its refresh failed)', () => {
    const { cache, advance } = make();
    cache.keepSearch('q', 'S', cache.searchStamp());
    cache.keepDetail('a', 'a/', 'A', cache.detailStamp('a'));
    cache.keepDetail('b', 'b/', 'B', cache.detailStamp('b'));
    cache.keepSchema('b', 'b/1', 'bytes', cache.schemaStamp('b'));
    advance(1000);
    cache.changed('a');
    expect(cache.search('q')).toBeUndefined();
    expect(cache.detail('a', 'a/')).toBeUndefined();
    expect(cache.detail('b', 'b/')?.stale).toBe(true);
    cache.dropDetail('b/');
    cache.dropSchema('b/1');
    expect(cache.detail('b', 'b/')).toBeUndefined();
    expect(cache.schema('b', 'b/1')).toBeUndefined();
    cache.keepSearch('q', 'S', cache.searchStamp());
    cache.dropSearch('q');
    expect(cache.search('q')).toBeUndefined();
  });

  it('drops every search answer and the changed slug details on a change, keeping other details', () => {
    const { cache } = make();
    cache.keepSearch('q', 'S', cache.searchStamp());
    cache.keepDetail('a', 'a/', 'A', cache.detailStamp('a'));
    cache.keepDetail('b', 'b/', 'B', cache.detailStamp('b'));
    cache.changed('a');
    expect(cache.search('q')).toBeUndefined();
    expect(cache.detail('a', 'a/')).toBeUndefined();
    expect(cache.detail('b', 'b/')?.value).toBe('B');
  });

  it('drops only the details of slugs whose download counts were written', () => {
    const { cache } = make();
    cache.keepSearch('q', 'S', cache.searchStamp());
    cache.keepDetail('a', 'a/', 'A', cache.detailStamp('a'));
    cache.keepDetail('b', 'b/', 'B', cache.detailStamp('b'));
    const readingA = cache.detailStamp('a');
    cache.countsWritten(['a']);
    expect(cache.search('q')?.value).toBe('S');
    expect(cache.detail('a', 'a/')).toBeUndefined();
    expect(cache.detail('b', 'b/')?.value).toBe('B');
    cache.keepDetail('a', 'a/', 'stale', readingA);
    expect(cache.detail('a', 'a/')).toBeUndefined();
  });

  it('keeps schema bytes through written counts and drops them on a change of their slug', () => {
    const { cache } = make();
    cache.keepSchema('a', 'a/1', 'bytes', cache.schemaStamp('a'));
    cache.keepSchema('b', 'b/1', 'other', cache.schemaStamp('b'));
    cache.countsWritten(['a']);
    expect(cache.schema('a', 'a/1')?.value).toBe('bytes');
    cache.changed('a');
    expect(cache.schema('a', 'a/1')).toBeUndefined();
    expect(cache.schema('b', 'b/1')?.value).toBe('other');
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
    expect(cache.detail('a', 'a/')?.value).toBe('fresh');
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

  it('replaces an entry without evicting another, and moves it to the newest end', () => {
    const cache = new TtlCache<string>(1000, 2, () => 0, 1000);
    cache.set('a', '1');
    cache.set('b', '2');
    cache.set('a', '3');
    expect([cache.get('a'), cache.get('b')]).toEqual(['3', '2']);
    cache.set('c', '4');
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual(['3', undefined, '4']);
  });

  it('finds an expired entry as stale during the grace period only', () => {
    let now = 0;
    const cache = new TtlCache<string>(100, 10, () => now, 50);
    cache.set('a', '1');
    now = 100;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.lookup('a')).toEqual({ value: '1', stale: true });
    now = 150;
    expect(cache.lookup('a')).toBeUndefined();
  });
});
