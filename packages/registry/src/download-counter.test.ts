import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DownloadCount } from '@weft/core';
import { DownloadCounter } from './download-counter.js';

function recorder() {
  const batches: DownloadCount[][] = [];
  let failures = 0;
  return {
    batches,
    failNext: (n = 1) => (failures = n),
    store: {
      recordDownloads: async (counts: readonly DownloadCount[]) => {
        if (failures > 0) {
          failures--;
          throw new Error('database down');
        }
        batches.push(counts.map((c) => ({ ...c })));
      },
    },
  };
}

const AT = '2026-03-01T10:00:00.000Z';

describe('DownloadCounter', () => {
  afterEach(() => vi.useRealTimers());

  it('writes the downloads of one interval together, summed per version and day', async () => {
    vi.useFakeTimers();
    const { store, batches } = recorder();
    const written: string[][] = [];
    const counter = new DownloadCounter(store, 1000, (slugs) => written.push([...slugs]));
    await counter.count('a', '1.0.0', AT);
    await counter.count('a', '1.0.0', AT);
    await counter.count('a', '1.0.0', '2026-03-02T00:00:00.000Z');
    await counter.count('b', '2.0.0', AT);
    expect(batches).toEqual([]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(batches).toEqual([
      [
        { slug: 'a', version: '1.0.0', date: '2026-03-01', count: 2 },
        { slug: 'a', version: '1.0.0', date: '2026-03-02', count: 1 },
        { slug: 'b', version: '2.0.0', date: '2026-03-01', count: 1 },
      ],
    ]);
    expect(written).toEqual([['a', 'b']]);
  });

  it('writes each download before answering when the interval is 0', async () => {
    const { store, batches } = recorder();
    const counter = new DownloadCounter(store, 0, () => {});
    await counter.count('a', '1.0.0', AT);
    expect(batches).toEqual([[{ slug: 'a', version: '1.0.0', date: '2026-03-01', count: 1 }]]);
  });

  it('keeps the counts of a failed write for the next one, and writes the rest on close', async () => {
    vi.useFakeTimers();
    const { store, batches, failNext } = recorder();
    const counter = new DownloadCounter(store, 1000, () => {});
    await counter.count('a', '1.0.0', AT);
    failNext();
    await expect(counter.flush()).rejects.toThrow('database down');
    await counter.count('a', '1.0.0', AT);
    await counter.close();
    expect(batches).toEqual([[{ slug: 'a', version: '1.0.0', date: '2026-03-01', count: 2 }]]);
  });

  it('retries a failed timed write without another download', async () => {
    vi.useFakeTimers();
    const { store, batches, failNext } = recorder();
    const counter = new DownloadCounter(store, 1000, () => {});
    failNext();
    await counter.count('a', '1.0.0', AT);
    await vi.advanceTimersByTimeAsync(1000);
    expect(batches).toEqual([]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(batches).toEqual([[{ slug: 'a', version: '1.0.0', date: '2026-03-01', count: 1 }]]);
  });
});
