/**
 * A bounded least-recently-used cache on a `Map` (which keeps insertion order): a hit moves the
 * entry to the back, and inserting past `capacity` drops the entry at the front.
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(readonly capacity: number) {
    if (!(capacity >= 1)) throw new RangeError(`capacity must be at least 1, found ${capacity}`);
  }

  /** Number of entries held. */
  get size(): number {
    return this.entries.size;
  }

  /** The value for `key`, marking it most recently used; `undefined` when absent. */
  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  /** Stores `value` as the most recently used entry, evicting the least recently used if full. */
  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }

  /** Drops every entry. */
  clear(): void {
    this.entries.clear();
  }
}
