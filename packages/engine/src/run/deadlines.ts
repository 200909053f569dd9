import type { Clock } from '@weft/core';

/** Something with a deadline: an action attempt that must end by then. */
export interface Deadline {
  readonly deadline: number;
  expire(): void;
}

/**
 * One timer for every in-flight attempt of a run, armed at the earliest deadline. Adding and
 * removing an attempt is a Set operation, so a fast step pays no timer of its own. Deadlines are
 * times of `clock`; the timer waits real time, and an entry expires once `clock` has reached
 * its deadline when the timer fires (a fake clock that stands still never expires one).
 */
export class Deadlines {
  private readonly entries = new Set<Deadline>();
  private timer: NodeJS.Timeout | undefined;
  private armedAt = Infinity;

  constructor(private readonly clock: Clock) {}

  /** Watches `entry`; its `expire` runs once its deadline has passed. */
  add(entry: Deadline): void {
    this.entries.add(entry);
    if (entry.deadline < this.armedAt) this.arm(entry.deadline);
  }

  /** Stops watching `entry` (it ended in time). */
  delete(entry: Deadline): void {
    this.entries.delete(entry);
  }

  /** The entries still watched. */
  get active(): ReadonlySet<Deadline> {
    return this.entries;
  }

  /** Stops the timer; call when the run ends. */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.armedAt = Infinity;
    this.entries.clear();
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
    let next = Infinity;
    for (const entry of this.entries) {
      if (entry.deadline <= now) {
        this.entries.delete(entry);
        entry.expire();
      } else if (entry.deadline < next) {
        next = entry.deadline;
      }
    }
    if (next < Infinity) this.arm(next);
  }
}
