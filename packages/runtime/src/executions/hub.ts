/**
 * Wakes those waiting on an execution (event streams, `Prefer: wait`) when this process wrote
 * new events for it or ended it. Waiters re-read the store, so a missed wake costs latency only;
 * executions run by another replica are noticed by the waiters' own polling.
 */
export class ExecutionHub {
  private readonly waiters = new Map<string, Set<() => void>>();

  /**
   * Resolves at the next change of execution `id`, after `ms`, or when `signal` aborts; call it
   * before reading the store, so that a change in between is not missed.
   */
  wait(id: string, ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      let set = this.waiters.get(id);
      if (!set) this.waiters.set(id, (set = new Set()));
      const waiters = set;
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        waiters.delete(done);
        if (waiters.size === 0 && this.waiters.get(id) === waiters) this.waiters.delete(id);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
      waiters.add(done);
    });
  }

  /** Wakes every waiter of execution `id`. */
  notify(id: string): void {
    const set = this.waiters.get(id);
    if (!set) return;
    for (const wake of [...set]) wake();
  }

  /** True when someone waits on execution `id` (events are then worth announcing). */
  watched(id: string): boolean {
    return this.waiters.has(id);
  }
}
