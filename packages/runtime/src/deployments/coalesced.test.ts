import { describe, expect, it } from 'vitest';
import { coalesced } from './coalesced.js';

describe('coalesced', () => {
  it('answers each call with a run started after it; calls during a run share one more', async () => {
    const releases: (() => void)[] = [];
    let runs = 0;
    const refresh = coalesced(
      () =>
        new Promise<void>((resolve) => {
          runs++;
          releases.push(resolve);
        }),
    );
    const first = refresh();
    const during = [refresh(), refresh(), refresh()];
    expect(runs).toBe(1);
    releases[0]!();
    await first;
    await new Promise((resolve) => setImmediate(resolve));
    expect(runs).toBe(2);
    releases[1]!();
    await Promise.all(during);
    expect(runs).toBe(2);
    const later = refresh();
    expect(runs).toBe(3);
    releases[2]!();
    await later;
  });

  it('rejects the calls a failed run answers, and runs again on the next call', async () => {
    let fail = true;
    const refresh = coalesced(async () => {
      if (fail) throw new Error('store down');
    });
    await expect(refresh()).rejects.toThrow('store down');
    fail = false;
    await expect(refresh()).resolves.toBeUndefined();
  });
});
