import { TtlCache } from './cache.js';

/** A cached answer and the generation of the data it was read from. */
interface Stamped {
  text: string;
  stamp: number;
}

/** Most slugs whose generation is tracked before the detail answers are dropped all at once. */
const MAX_TRACKED_SLUGS = 100_000;

/**
 * Serialised search and detail answers, kept until the data under them changes.
 *
 * Every change this process makes to a plugin (publish, update, deprecate, unpublish) calls
 * {@link changed}: it drops every search answer (a change can move any plugin in or out of any
 * page) and the detail answers of that slug only. Written download counts call
 * {@link countsWritten}, which drops the detail answers of those slugs but keeps the search
 * answers: a page's download counts (and the ties they break) may then be as old as the time to
 * live, so installs do not empty the search cache. An answer is stamped with the generation
 * current when its read began, and served only while that generation is still current, so a
 * read that raced a change never caches stale data. The time to live also bounds what this
 * process cannot see: writes by other processes on the same database (replicas sharing
 * PostgreSQL).
 */
export class AnswerCache {
  /** Generation of the search answers: raised by every change. */
  private generation = 0;
  /** Raised by every change of a slug's details; the stamp of its detail answers. */
  private detailGeneration = 0;
  /** Detail generation of the last change of each slug (absent: before `baseline`). */
  private readonly slugGenerations = new Map<string, number>();
  private baseline = 0;
  private readonly searches: TtlCache<Stamped>;
  private readonly details: TtlCache<Stamped>;

  constructor(ttlMs: number, maxEntries: number, now: () => number) {
    this.searches = new TtlCache(ttlMs, maxEntries, now);
    this.details = new TtlCache(ttlMs, maxEntries, now);
  }

  /** The stamp to give a search answer whose read begins now. */
  searchStamp(): number {
    return this.generation;
  }

  /** The stamp to give a detail answer of `slug` whose read begins now. */
  detailStamp(slug: string): number {
    return this.slugGenerations.get(slug) ?? this.baseline;
  }

  /** A search answer still valid, if any. */
  search(key: string): string | undefined {
    const entry = this.searches.get(key);
    return entry && entry.stamp === this.generation ? entry.text : undefined;
  }

  /** Keeps a search answer read under `stamp`. */
  keepSearch(key: string, text: string, stamp: number): void {
    if (stamp === this.generation) this.searches.set(key, { text, stamp });
  }

  /** A detail answer of `slug` still valid, if any. */
  detail(slug: string, key: string): string | undefined {
    const entry = this.details.get(key);
    return entry && entry.stamp === this.detailStamp(slug) ? entry.text : undefined;
  }

  /** Keeps a detail answer of `slug` read under `stamp`. */
  keepDetail(slug: string, key: string, text: string, stamp: number): void {
    if (stamp === this.detailStamp(slug)) this.details.set(key, { text, stamp });
  }

  /** Records that `slug` changed: its details and every search answer are stale. */
  changed(slug: string): void {
    this.generation++;
    this.searches.clear();
    this.detailsChanged(slug);
  }

  /** Records that download counts of `slugs` were written: their details are stale. */
  countsWritten(slugs: Iterable<string>): void {
    for (const slug of slugs) this.detailsChanged(slug);
  }

  private detailsChanged(slug: string): void {
    this.detailGeneration++;
    if (this.slugGenerations.size >= MAX_TRACKED_SLUGS) {
      this.slugGenerations.clear();
      this.details.clear();
      this.baseline = this.detailGeneration;
    }
    this.slugGenerations.set(slug, this.detailGeneration);
  }
}
