import type { Clock } from '../ports/clock.js';

/** Where a {@link ManualClock} starts unless told: 2026-03-01 12:00 UTC. */
export const MANUAL_CLOCK_START = Date.parse('2026-03-01T12:00:00.000Z');

/**
 * A {@link Clock} whose time moves only when a test says so: by {@link advance}, or by the
 * sleeps of the code under test, which resolve at once (and are recorded in {@link sleeps}).
 * Leases, deadlines, schedules, retries and retention are tested on it instead of fake timers.
 */
export class ManualClock implements Clock {
  /** The sleeps asked for, in order, in milliseconds. */
  readonly sleeps: number[] = [];

  constructor(public ms: number = MANUAL_CLOCK_START) {}

  /** Milliseconds since the epoch; a property, so `clock.now` may be passed on unbound. */
  now = (): number => this.ms;

  /** Moves time forward by `ms`. */
  advance(ms: number): void {
    this.ms += ms;
  }

  /** Moves time forward by `hours`. */
  advanceHours(hours: number): void {
    this.advance(hours * 3_600_000);
  }

  /** Records the sleep and moves time forward by it; resolves at once. */
  sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    this.ms += ms;
    return Promise.resolve();
  }
}
