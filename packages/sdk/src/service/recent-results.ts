import type { HostAnswer } from './host.js';

interface Entry {
  /** `<plugin>.<action>` the key was first used for: another action under it is not a duplicate. */
  action: string;
  answer: Promise<HostAnswer>;
}

/**
 * The answers of the latest action calls by idempotency key (`<execution_id>/<step path>`), so
 * that a call delivered again (a redelivered broker task, a step resumed by another replica, a
 * retried HTTP request) gets the first call's answer instead of running the handler twice. A
 * call still running is joined; a success is remembered; a failure is forgotten, so that a retry
 * of the step runs again. Bounded: the least recently used key goes first.
 */
export class RecentResults {
  private readonly entries = new Map<string, Entry>();
  /** Calls answered from memory instead of running again. */
  duplicates = 0;

  constructor(private readonly capacity: number) {}

  /** Runs `run` unless `key` already has an answer (or a call running) for the same action. */
  run(key: string, action: string, run: () => Promise<HostAnswer>): Promise<HostAnswer> {
    if (key === '' || this.capacity <= 0) return run();
    const known = this.entries.get(key);
    if (known && known.action === action) {
      this.duplicates++;
      this.entries.delete(key);
      this.entries.set(key, known);
      return known.answer;
    }
    const answer = run();
    const entry: Entry = { action, answer };
    this.entries.set(key, entry);
    if (this.entries.size > this.capacity) {
      this.entries.delete(this.entries.keys().next().value!);
    }
    void answer.then(
      (settled) => {
        if (settled.body.status !== 'success') this.forget(key, entry);
      },
      () => this.forget(key, entry),
    );
    return answer;
  }

  /** Keys remembered right now. */
  get size(): number {
    return this.entries.size;
  }

  private forget(key: string, entry: Entry): void {
    if (this.entries.get(key) === entry) this.entries.delete(key);
  }
}
