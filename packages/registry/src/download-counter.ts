import type { DownloadCount, RegistryStore } from '@weft/core';

/** Most distinct (slug, version, day) counts held before a write is forced. */
const MAX_PENDING = 10_000;

/**
 * Counts schema downloads in memory and writes them together: one transaction per interval
 * instead of one per download, so installs cost the database almost nothing under load. A
 * write that fails puts its counts back for the next one. `flushMs` 0 writes every download
 * before its answer. What is not yet written is lost if the process dies (at most one
 * interval's counts); {@link close} writes the rest on a clean stop.
 */
export class DownloadCounter {
  private pending = new Map<string, DownloadCount>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private writing: Promise<void> = Promise.resolve();

  /**
   * @param written called with the slugs whose counts a write stored (their answers are stale).
   */
  constructor(
    private readonly store: Pick<RegistryStore, 'recordDownloads'>,
    private readonly flushMs: number,
    private readonly written: (slugs: ReadonlySet<string>) => void,
  ) {}

  /** Counts one download of `slug@version` on the UTC day of `at` (ISO 8601). */
  async count(slug: string, version: string, at: string): Promise<void> {
    const date = at.slice(0, 10);
    const key = `${slug}\0${version}\0${date}`;
    const entry = this.pending.get(key);
    if (entry) entry.count++;
    else this.pending.set(key, { slug, version, date, count: 1 });
    if (this.flushMs === 0 || this.pending.size >= MAX_PENDING) return this.flush();
    this.schedule();
  }

  private schedule(): void {
    if (this.timer || this.flushMs === 0) return;
    this.timer = setTimeout(() => void this.flush().catch(() => {}), this.flushMs);
    this.timer.unref?.();
  }

  /** Writes every count not yet written (after any write under way); rejects if it fails. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const next = this.writing.then(() => this.write());
    this.writing = next.catch(() => {});
    return next;
  }

  /** Writes what is left; call on shutdown. */
  close(): Promise<void> {
    return this.flush();
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await this.store.recordDownloads([...batch.values()]);
    } catch (error) {
      for (const [key, entry] of batch) {
        const later = this.pending.get(key);
        if (later) later.count += entry.count;
        else this.pending.set(key, entry);
      }
      this.schedule();
      throw error;
    }
    this.written(new Set([...batch.values()].map((entry) => entry.slug)));
  }
}
