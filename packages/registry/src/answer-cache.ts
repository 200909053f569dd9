import { TtlCache, type Cached } from './cache.js';

/** A cached answer and the generation of the data it was read from. */
interface Stamped<T> {
  value: T;
  stamp: number;
}

/** Most slugs whose generation is tracked before the answers about slugs are dropped at once. */
const MAX_TRACKED_SLUGS = 100_000;

/** Most cached schema downloads, and the largest body kept (bigger ones are read each time). */
const MAX_SCHEMAS = 1000;
export const MAX_CACHED_SCHEMA_BYTES = 64 * 1024;

/**
 * Answers about one slug each (details, schema bytes), with a generation per slug: an answer
 * is served only while its slug's generation is the one its read began under.
 */
class SlugAnswers<T> {
  private next = 0;
  private readonly bySlug = new Map<string, number>();
  private baseline = 0;

  constructor(private readonly answers: TtlCache<Stamped<T>>) {}

  /** The stamp to give an answer about `slug` whose read begins now. */
  stamp(slug: string): number {
    return this.bySlug.get(slug) ?? this.baseline;
  }

  get(slug: string, key: string): Cached<T> | undefined {
    const found = this.answers.lookup(key);
    return found && found.value.stamp === this.stamp(slug)
      ? { value: found.value.value, stale: found.stale }
      : undefined;
  }

  drop(key: string): void {
    this.answers.delete(key);
  }

  keep(slug: string, key: string, value: T, stamp: number): void {
    if (stamp === this.stamp(slug)) this.answers.set(key, { value, stamp });
  }

  /** Makes every answer about `slug` stale. */
  raise(slug: string): void {
    if (this.bySlug.size >= MAX_TRACKED_SLUGS) this.raiseAll();
    this.bySlug.set(slug, ++this.next);
  }

  /** Makes every answer stale. */
  raiseAll(): void {
    this.bySlug.clear();
    this.baseline = ++this.next;
    this.answers.clear();
  }
}

/**
 * Serialised search and detail answers, and the bytes of schema downloads, kept until the data
 * under them changes.
 *
 * Every change this process makes to a plugin (publish, update, deprecate, unpublish) calls
 * {@link changed}: it drops every search answer (a change can move any plugin in or out of any
 * page) and the detail and schema answers of that slug only. Written download counts call
 * {@link countsWritten}, which drops the detail answers of those slugs but keeps the search
 * answers: a page's download counts (and the ties they break) may then be as old as the time to
 * live, so installs do not empty the search cache. An answer is stamped with the generation
 * current when its read began, and served only while that generation is still current, so a
 * read that raced a change never caches stale data. The time to live also bounds what this
 * process cannot see: writes by other processes on the same database (replicas sharing
 * PostgreSQL). An answer whose time to live ran out is still found, marked stale, for one more
 * time to live: the service serves it while one read refreshes it (stale-while-revalidate), so
 * that expiry never makes a request wait for the database. A change still drops it at once.
 */
export class AnswerCache<S = unknown> {
  /** Generation of the search answers: raised by every change. */
  private generation = 0;
  private readonly searches: TtlCache<Stamped<string>>;
  /** Stale on changes and written counts of their slug. */
  private readonly details: SlugAnswers<string>;
  /** Stale on changes of their slug only. */
  private readonly schemas: SlugAnswers<S>;

  constructor(ttlMs: number, maxEntries: number, now: () => number) {
    // An expired answer is served for up to one more time to live while it is read again.
    this.searches = new TtlCache(ttlMs, maxEntries, now, ttlMs);
    this.details = new SlugAnswers(new TtlCache(ttlMs, maxEntries, now, ttlMs));
    this.schemas = new SlugAnswers(
      new TtlCache(ttlMs, Math.min(maxEntries, MAX_SCHEMAS), now, ttlMs),
    );
  }

  /** The stamp to give a search answer whose read begins now. */
  searchStamp(): number {
    return this.generation;
  }

  /** A search answer no change has made stale, if any; `stale` once its time to live ran out. */
  search(key: string): Cached<string> | undefined {
    const found = this.searches.lookup(key);
    return found && found.value.stamp === this.generation
      ? { value: found.value.value, stale: found.stale }
      : undefined;
  }

  /** Forgets a search answer (its reading again failed). */
  dropSearch(key: string): void {
    this.searches.delete(key);
  }

  /** Keeps a search answer read under `stamp`. */
  keepSearch(key: string, text: string, stamp: number): void {
    if (stamp === this.generation) this.searches.set(key, { value: text, stamp });
  }

  /** The stamp to give a detail answer of `slug` whose read begins now. */
  detailStamp = (slug: string): number => this.details.stamp(slug);
  /** A detail answer of `slug` no change has made stale, if any (see {@link search}). */
  detail = (slug: string, key: string): Cached<string> | undefined => this.details.get(slug, key);
  /** Forgets a detail answer (its reading again failed). */
  dropDetail = (key: string): void => this.details.drop(key);
  /** Keeps a detail answer of `slug` read under `stamp`. */
  keepDetail = (slug: string, key: string, text: string, stamp: number): void =>
    this.details.keep(slug, key, text, stamp);

  /** The stamp to give a schema answer of `slug` whose read begins now. */
  schemaStamp = (slug: string): number => this.schemas.stamp(slug);
  /** A schema answer of `slug` no change has made stale, if any (see {@link search}). */
  schema = (slug: string, key: string): Cached<S> | undefined => this.schemas.get(slug, key);
  /** Forgets a schema answer (its reading again failed). */
  dropSchema = (key: string): void => this.schemas.drop(key);
  /** Keeps a schema answer of `slug` read under `stamp`. */
  keepSchema = (slug: string, key: string, value: S, stamp: number): void =>
    this.schemas.keep(slug, key, value, stamp);

  /** Records that `slug` changed: its details, its schemas and every search answer are stale. */
  changed(slug: string): void {
    this.generation++;
    this.searches.clear();
    this.schemas.raise(slug);
    this.details.raise(slug);
  }

  /** Records that any plugin may have changed (changes elsewhere were missed): all is stale. */
  changedAll(): void {
    this.generation++;
    this.searches.clear();
    this.schemas.raiseAll();
    this.details.raiseAll();
  }

  /** Records that download counts of `slugs` were written: their details are stale. */
  countsWritten(slugs: Iterable<string>): void {
    for (const slug of slugs) this.details.raise(slug);
  }
}
