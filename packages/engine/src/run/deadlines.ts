import type { Clock } from '@weft/core';

/**
 * Something with a deadline: an action attempt that must end by then. Its links are those of the
 * one {@link Deadlines} list it may be in, and belong to that list.
 */
export abstract class Deadline {
  abstract readonly deadline: number;
  abstract expire(): void;
  /** @internal */
  previous: Deadline | undefined = undefined;
  /** @internal */
  next: Deadline | undefined = undefined;
  /** @internal */
  listed = false;
}

/**
 * The in-flight entries of a run, with one timer for all of them, armed at the earliest
 * deadline. The entries form a linked list through their own links: adding and removing one
 * allocates nothing (a `Set` that went from one entry to none reallocated its table at every
 * removal), so a fast step pays neither a timer nor an allocation of its own. Deadlines are
 * times of `clock`; the timer waits real time, and an entry expires once `clock` has reached its
 * deadline when the timer fires (a fake clock that stands still never expires one).
 */
export class Deadlines<T extends Deadline> {
  private first: Deadline | undefined;
  private last: Deadline | undefined;
  private timer: NodeJS.Timeout | undefined;
  private armedAt = Infinity;

  constructor(private readonly clock: Clock) {}

  /** Watches `entry`; its `expire` runs once its deadline has passed, unless deleted before. */
  add(entry: T): void {
    if (entry.listed) return;
    entry.listed = true;
    entry.previous = this.last;
    entry.next = undefined;
    if (this.last) this.last.next = entry;
    else this.first = entry;
    this.last = entry;
    if (entry.deadline < this.armedAt) this.arm(entry.deadline);
  }

  /** Stops watching `entry` (it ended); false when it was not watched. */
  delete(entry: T): boolean {
    if (!entry.listed) return false;
    entry.listed = false;
    if (entry.previous) entry.previous.next = entry.next;
    else this.first = entry.next;
    if (entry.next) entry.next.previous = entry.previous;
    else this.last = entry.previous;
    entry.previous = undefined;
    entry.next = undefined;
    return true;
  }

  /** The entries watched now, in the order they were added. */
  snapshot(): T[] {
    const entries: T[] = [];
    for (let entry = this.first; entry; entry = entry.next) entries.push(entry as T);
    return entries;
  }

  /** Stops watching every entry and stops the timer; answers the entries that were watched. */
  clear(): T[] {
    const entries = this.snapshot();
    for (const entry of entries) this.delete(entry);
    clearTimeout(this.timer);
    this.timer = undefined;
    this.armedAt = Infinity;
    return entries;
  }

  private arm(at: number): void {
    clearTimeout(this.timer);
    this.armedAt = at;
    this.timer = setTimeout(() => this.fire(), Math.max(0, at - this.clock.now()));
  }

  private fire(): void {
    this.timer = undefined;
    this.armedAt = Infinity;
    const now = this.clock.now();
    for (const entry of this.snapshot()) {
      // An expiry aborts a handler's signal, whose listeners run now and may end other entries.
      if (entry.listed && entry.deadline <= now) {
        this.delete(entry);
        entry.expire();
      }
    }
    let next = Infinity;
    for (let entry = this.first; entry; entry = entry.next) {
      if (entry.deadline < next) next = entry.deadline;
    }
    // An entry added by a listener may have armed the timer already, for an earlier time.
    if (next < this.armedAt) this.arm(next);
  }
}
