/**
 * A bounded map whose entries expire; the oldest entry goes first when it is full. Each entry
 * lives for a time drawn between three quarters of the time to live and all of it: answers
 * kept together (a warm-up, the burst after a publish) then do not all expire at once, which on
 * SQLite would have the reads of all of them, one after another on the event loop, stall every
 * answer served from the cache behind them.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number,
  ) {}

  /** The live value of `key`, if any. */
  get(key: string): V | undefined {
    if (this.ttlMs <= 0) return undefined;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Stores `value` under `key` for the time to live. */
  set(key: string, value: V): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    const life = this.ttlMs - Math.floor((Math.random() * this.ttlMs) / 4);
    this.entries.set(key, { value, expires: this.now() + life });
  }

  /** Forgets everything (after a write). */
  clear(): void {
    this.entries.clear();
  }
}
