import { describe, expect, it } from 'vitest';
import { timeOrderedId } from './time-ordered-id.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('timeOrderedId', () => {
  it('is a version 7 UUID whose first 48 bits are the milliseconds', () => {
    const id = timeOrderedId(0x0123456789ab);
    expect(id).toMatch(V7);
    expect(id.slice(0, 13)).toBe('01234567-89ab');
  });

  it('sorts by time and never repeats', () => {
    const ids = Array.from({ length: 5000 }, (_, i) => timeOrderedId(1_700_000_000_000 + i));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    const same = Array.from({ length: 5000 }, () => timeOrderedId(1_700_000_000_000));
    expect(new Set(same).size).toBe(same.length);
    for (const id of same) expect(id).toMatch(V7);
  });
});
