/** A cached value, and whether its time to live has run out (see {@link TtlCache.lookup}). */
export interface Cached<V> {
  value: V;
  stale: boolean;
}

/**
 * A bounded map whose entries expire; the oldest entry goes first when it is full. Each entry
 * lives for a time drawn between three quarters of the time to live and all of it: answers
 * kept together (a warm-up, the burst after a publish) then do not all expire at once, which on
 * SQLite would have the reads of all of them, one after another on the event loop, stall every
 * answer served from the cache behind them. An expired entry is still found, as stale, for
 * `graceMs` more (see {@link lookup}); after that it is gone.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number,
    private readonly graceMs = 0,
  ) {}

  /** The live value of `key`, if any. */
  get(key: string): V | undefined {
    const found = this.lookup(key);
    return found && !found.stale ? found.value : undefined;
  }

  /** The value of `key`: live, or stale within the grace period after it expired. */
  lookup(key: string): Cached<V> | undefined {
    if (this.ttlMs <= 0) return undefined;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const now = this.now();
    if (entry.expires > now) return { value: entry.value, stale: false };
    if (entry.expires + this.graceMs > now) return { value: entry.value, stale: true };
    this.entries.delete(key);
    return undefined;
  }

  /** Stores `value` under `key` for the time to live. */
  set(key: string, value: V): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries && !this.entries.has(key)) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    // Deleted first, so that a refreshed entry moves to the newest end of the eviction order.
    this.entries.delete(key);
    const life = this.ttlMs - Math.floor((Math.random() * this.ttlMs) / 4);
    this.entries.set(key, { value, expires: this.now() + life });
  }

  /** Forgets `key`. */
  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Forgets everything (after a write). */
  clear(): void {
    this.entries.clear();
  }
}
