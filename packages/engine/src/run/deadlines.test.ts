import { describe, expect, it } from 'vitest';
import { ManualClock } from '@weft/core/testing';
import { Deadline, Deadlines } from './deadlines.js';

class Entry extends Deadline {
  expired = 0;
  constructor(
    readonly name: string,
    readonly deadline: number,
    private readonly onExpire: (entry: Entry) => void = () => {},
  ) {
    super();
  }
  expire(): void {
    this.expired++;
    this.onExpire(this);
  }
}

const names = (entries: readonly Entry[]) => entries.map((entry) => entry.name);
const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Deadlines', () => {
  it('keeps entries in the order added, whichever is deleted', () => {
    const list = new Deadlines<Entry>(new ManualClock(0));
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => new Entry(name, 1_000));
    for (const entry of [a!, b!, c!, d!]) list.add(entry);
    list.add(b!); // twice: still once
    expect(names(list.snapshot())).toEqual(['a', 'b', 'c', 'd']);
    expect(list.delete(b!)).toBe(true);
    expect(list.delete(b!)).toBe(false);
    expect(list.delete(a!)).toBe(true);
    expect(list.delete(d!)).toBe(true);
    expect(names(list.snapshot())).toEqual(['c']);
    list.add(a!);
    expect(names(list.snapshot())).toEqual(['c', 'a']);
    expect(names(list.clear())).toEqual(['c', 'a']);
    expect(list.snapshot()).toEqual([]);
    expect(list.delete(c!)).toBe(false);
  });

  it('expires the due entries when the timer fires, and waits again for the next', async () => {
    const clock = new ManualClock(0);
    const list = new Deadlines<Entry>(clock);
    const late = new Entry('late', 20);
    const soon = new Entry('soon', 5);
    const gone = new Entry('gone', 5);
    const also = new Entry('also', 10);
    for (const entry of [late, soon, gone, also]) list.add(entry);
    list.delete(gone);
    clock.advance(10);
    await tick(30);
    expect([late, soon, gone, also].map((entry) => entry.expired)).toEqual([0, 1, 0, 1]);
    expect(names(list.snapshot())).toEqual(['late']);
    clock.advance(10);
    await tick(30);
    expect(late.expired).toBe(1);
    expect(list.snapshot()).toEqual([]);
  });

  it('expires an entry once, and not when an earlier expiry ended it', async () => {
    const clock = new ManualClock(0);
    const list = new Deadlines<Entry>(clock);
    const other = new Entry('other', 5);
    const first = new Entry('first', 5, () => list.delete(other));
    const later = new Entry('later', 50);
    for (const entry of [first, other, later]) list.add(entry);
    clock.advance(5);
    await tick(30);
    expect([first.expired, other.expired, later.expired]).toEqual([1, 0, 0]);
    expect(names(list.snapshot())).toEqual(['later']);
    list.clear();
  });

  it('never expires an entry on a clock that stands still, nor after clear', async () => {
    const clock = new ManualClock(0);
    const list = new Deadlines<Entry>(clock);
    const entry = new Entry('e', 1);
    list.add(entry);
    await tick(20);
    expect(entry.expired).toBe(0);
    list.clear();
    clock.advance(10);
    await tick(20);
    expect(entry.expired).toBe(0);
  });
});
