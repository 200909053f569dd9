import type { Cached } from './cache.js';

/**
 * The reads of answers not (or no longer) cached, by cache key. A read in flight under the
 * same stamp (no change of this process since it began) is shared, so a burst of identical
 * requests for a cold answer costs one database read, not one each.
 */
export class SharedReads {
  private readonly reading = new Map<string, { stamp: number; answer: Promise<unknown> }>();

  /**
   * The answer `found` in the cache, or else one read by `read` (see {@link shared}). A stale
   * answer (its time to live ran out) is served at once while `read` runs once in the background
   * to replace it; when that read fails, `drop` forgets the stale answer, so the next request
   * reads (and meets the failure) itself.
   */
  answer<T>(
    found: Cached<T> | undefined,
    key: string,
    stamp: number,
    drop: () => void,
    read: (stamp: number) => Promise<T>,
  ): Promise<T> {
    if (!found) return this.shared(key, stamp, read);
    if (found.stale) this.shared(key, stamp, read).catch(drop);
    return Promise.resolve(found.value);
  }

  /** Runs `read`, unless the same read is already in flight under the same stamp. */
  private shared<T>(key: string, stamp: number, read: (stamp: number) => Promise<T>): Promise<T> {
    const current = this.reading.get(key);
    if (current && current.stamp === stamp) return current.answer as Promise<T>;
    const answer = read(stamp).finally(() => {
      if (this.reading.get(key)?.answer === answer) this.reading.delete(key);
    });
    this.reading.set(key, { stamp, answer });
    return answer;
  }
}
