import type { SearchQuery } from '@weft/core';
import type { Dialect } from './database.js';

/**
 * The second plan of a ranked search, on both stores, for a query whose words are in the names
 * of many plugins (a one- or two-letter prefix: `s` matches 5,806 of 10,000). The ranked plan
 * ranks and sorts every match (~1 µs each on SQLite, ~1–2 µs on PostgreSQL); this one reads
 * the plugins whose name has every word (rank 1) and keeps the best `offset + limit`: by a
 * walk of `plugins_listed` in popularity order that stops when the page is full, or, when the
 * names are few enough, from the full-text index (see {@link namesPlan}). It gives the same
 * page as the ranked plan only when the names alone fill it (`offset + limit` name matches):
 * every rank 2 and 3 match then comes after the page. Rank 0 (the whole query is the slug or
 * the name) is found directly: the slug by its key, an exact name by its folded name in
 * `plugins_name_key` (a match of the words still, as in the ranked plan).
 *
 * The total counts the full-text matches (only listed plugins have words indexed), plus the
 * exact slug when its words do not match: on SQLite in the full-text index alone, on
 * PostgreSQL in the GIN index and the rows it points to (as the ranked plan counts). A page the
 * walk could not fill (the counts that chose it were stale, or on PostgreSQL it reached its cap,
 * see {@link walkParams}) may lack rank 2 and 3 matches: the caller then runs the ranked plan.
 * Only without a tag or kind: a filter needs a probe per match to count. Which plan runs is
 * decided by {@link namesPlan} alone; only the SQL text differs by dialect.
 */
/** The columns of a plugin summary row, read from `plugins p` (both plans). */
export const COLUMNS = `p.slug, p.slug_key, p.kind, p.owner, p.created_at, p.updated_at, p.downloads,
  p.latest_version, p.name, p.description, p.author, p.tags`;
/** Listed plugins: only they are found (and only they have tag and full-text rows). */
export const LISTED = 'p.latest_version IS NOT NULL';
/**
 * A bound LIMIT or OFFSET in SQLite text. SQLite (3.53) marks a bare `?` there as one the
 * planner read, so binding it expires the statement and each run prepares it again: ~65 µs
 * for the ranked search (a quarter of a `slack` search, nine tenths of one that finds
 * nothing), ~2 µs for a one-table read. A cast is an expression it does not read. PostgreSQL
 * plans a named statement once either way.
 */
const SQLITE_LIMIT = 'CAST(? AS INTEGER)';
/** `LIMIT ? OFFSET ?` for `dialect` (see {@link SQLITE_LIMIT}). */
export function limitOffset(dialect: Dialect): string {
  return dialect === 'postgres'
    ? 'LIMIT ? OFFSET ?'
    : `LIMIT ${SQLITE_LIMIT} OFFSET ${SQLITE_LIMIT}`;
}
/** Ties broken by slug, bytewise on both stores (PostgreSQL's own collation may not be). */
export function slugOrder(dialect: Dialect): string {
  return dialect === 'postgres' ? 'p.slug COLLATE "C"' : 'p.slug';
}

/**
 * PostgreSQL: a full-text query tested on each row (not an index condition), made once per
 * run. `to_tsquery` is only stable, so written in a row's condition it parses the query again
 * for every row: ~0.6 µs a match, 0.9 of the 1.9 ms that counting `sal`'s 1,583 matches took.
 * A scalar subquery is run once (an InitPlan); one in `FROM` is flattened into the rows'
 * conditions.
 */
export const PG_ROW_QUERY = "(SELECT to_tsquery('simple', ?))";

/** PostgreSQL: the full-text query of every word as a prefix (`to_tsquery` syntax). */
export function tsTerms(words: readonly string[]): string {
  return words.map((w) => `${w}:*`).join(' & ');
}

const MATCHES = 'SELECT rowid FROM plugin_search WHERE plugin_search MATCH ?';

/**
 * How the walk reads the names (rank 1): `walk` visits `plugins_listed` in popularity order and
 * keeps the plugins whose name matches; `index` reads the name matches from the full-text
 * index (SQLite) or the GIN index (PostgreSQL) and keeps the best `offset + limit`. Chosen by
 * {@link namesPlan}.
 */
export type NamesRead = 'walk' | 'index';

/**
 * SQLite: the rank 1 names, read as {@link NamesRead} says. Placeholders: the names' terms, the
 * exact key twice, the most kept.
 */
function sqliteNames(read: NamesRead): string {
  const kept = `p.slug <> ? AND p.name_key <> ?
        ORDER BY p.downloads DESC, p.slug LIMIT ${SQLITE_LIMIT}`;
  if (read === 'index') {
    return `SELECT p.slug, 1, p.downloads FROM plugin_search s
        JOIN plugins p INDEXED BY plugins_search_rank ON p.search_id = s.rowid AND ${LISTED}
        WHERE plugin_search MATCH ? AND ${kept}`;
  }
  return `SELECT p.slug, 1, p.downloads FROM plugins p INDEXED BY plugins_listed
        WHERE ${LISTED} AND p.search_id IN (${MATCHES}) AND ${kept}`;
}

/** Placeholders `?` of {@link walkText}, filled by {@link walkParams}. */
function sqliteWalk(read: NamesRead): string {
  return `SELECT ${COLUMNS},
    (SELECT count(*) FROM plugin_search WHERE plugin_search MATCH ?)
      + (SELECT count(*) FROM plugins p WHERE p.slug = ? AND ${LISTED}
        AND NOT EXISTS (SELECT 1 FROM plugin_search x
          WHERE x.rowid = p.search_id AND plugin_search MATCH ?)) AS total
  FROM (SELECT slug, rank, downloads FROM (
      SELECT p.slug, 0 AS rank, p.downloads FROM plugins p WHERE p.slug = ? AND ${LISTED}
      UNION ALL
      SELECT p.slug, 0, p.downloads FROM plugins p INDEXED BY plugins_name_key
        WHERE p.name_key = ? AND p.slug <> ? AND ${LISTED}
          AND EXISTS (SELECT 1 FROM plugin_search x
            WHERE x.rowid = p.search_id AND plugin_search MATCH ?)
      UNION ALL
      SELECT * FROM (${sqliteNames(read)}))
    ORDER BY rank, downloads DESC, slug ${limitOffset('sqlite')}) page
  JOIN plugins p ON p.slug = page.slug
  ORDER BY page.rank, page.downloads DESC, page.slug`;
}

/**
 * PostgreSQL: the same plan, each visited plugin's `search_name` tested (the first of
 * `plugins_listed`, or the GIN index's matches); the exact name by `plugins_name_key`; the
 * total from the GIN index `plugins_search` (only listed plugins have words), as the ranked
 * plan counts it.
 */
function postgresWalk(read: NamesRead): string {
  // The plugins whose names are tested: the first `visits` in popularity order, or the GIN
  // index's matches of the words (`read: 'index'`, the terms in place of `visits`).
  const visited =
    read === 'index'
      ? `FROM plugins p WHERE ${LISTED} AND p.search_all @@ to_tsquery('simple', ?)`
      : `FROM plugins p WHERE ${LISTED} ORDER BY p.downloads DESC, p.slug COLLATE "C" LIMIT ?`;
  return `SELECT ${COLUMNS},
    (SELECT count(*) FROM plugins p
      WHERE (p.search_all @@ to_tsquery('simple', ?) OR p.slug = ?) AND ${LISTED}) AS total
  FROM (SELECT slug, rank, downloads FROM (
      SELECT p.slug, 0 AS rank, p.downloads FROM plugins p WHERE p.slug = ? AND ${LISTED}
      UNION ALL
      SELECT p.slug, 0, p.downloads FROM plugins p
        WHERE p.name_key = ? AND p.slug <> ? AND ${LISTED}
          AND p.search_all @@ ${PG_ROW_QUERY}
      UNION ALL
      (SELECT p.slug, 1, p.downloads FROM (SELECT p.slug, p.downloads, p.search_name, p.name_key
          ${visited}) p
        WHERE p.search_name @@ ${PG_ROW_QUERY} AND p.slug <> ? AND p.name_key <> ?
        ORDER BY p.downloads DESC, p.slug COLLATE "C" LIMIT ?)) w
    ORDER BY rank, downloads DESC, slug COLLATE "C" LIMIT ? OFFSET ?) page
  JOIN plugins p ON p.slug = page.slug
  ORDER BY page.rank, page.downloads DESC, page.slug COLLATE "C"`;
}

const WALK_TEXTS: Record<Dialect, Record<NamesRead, string>> = {
  sqlite: { walk: sqliteWalk('walk'), index: sqliteWalk('index') },
  postgres: { walk: postgresWalk('walk'), index: postgresWalk('index') },
};

/** The walk of a query's words (see above), its names read as `read` says. */
export function walkText(dialect: Dialect, read: NamesRead = 'walk'): string {
  return WALK_TEXTS[dialect][read];
}

/** The full-text query of every word as a prefix, in the columns given. */
export function ftsTerms(columns: string, words: readonly string[]): string {
  const terms = words.map((w) => `"${w.replaceAll('"', '""')}"*`).join(' AND ');
  return `{${columns}} : (${terms})`;
}

/**
 * Parameters of {@link walkText}, in placeholder order. PostgreSQL: the walk visits at most
 * `visits` plugins (the matches the ranked plan would rank), then gives up with a short page.
 * Popularity ties are in slug order, and slugs start like names: the names of `sen` (`sentry`,
 * `sendgrid`) came after 7,000 plugins whose names lack it, where the density of name matches
 * promised 400. SQLite walks on (not yet capped).
 */
export function walkParams(
  dialect: Dialect,
  query: SearchQuery,
  visits: number,
  read: NamesRead = 'walk',
): unknown[] {
  const n = query.offset + query.limit;
  if (dialect === 'postgres') {
    const terms = tsTerms(query.words);
    const exact = query.exact;
    return [
      terms,
      exact,
      exact,
      exact,
      exact,
      terms,
      read === 'index' ? terms : visits,
      terms,
      exact,
      exact,
      n,
      query.limit,
      query.offset,
    ];
  }
  const all = ftsTerms('name tags description', query.words);
  const names = ftsTerms('name', query.words);
  return [
    all,
    query.exact,
    all,
    query.exact,
    query.exact,
    query.exact,
    all,
    names,
    query.exact,
    query.exact,
    n,
    query.limit,
    query.offset,
  ];
}

/**
 * A tag's plugins without words, in popularity order: `plugins_listed` walked, each plugin's tag
 * probed, until the page is full, instead of reading every plugin of the tag and sorting them
 * (1,333 at 10,000 plugins in 15 tags: ~1.7 ms on SQLite). Only listed plugins have tag rows,
 * so the total is the tag's index entries. Cheaper only when the tag is common (see
 * {@link walkWins}). Parameters: the tag twice, the limit, the offset.
 */
export function tagWalkText(dialect: Dialect): string {
  const total = '(SELECT count(*) FROM plugin_tags WHERE tag = ?) AS total';
  const order = `ORDER BY p.downloads DESC, ${slugOrder(dialect)} ${limitOffset(dialect)}`;
  if (dialect === 'sqlite') {
    return `SELECT ${COLUMNS}, ${total} FROM plugins p INDEXED BY plugins_listed
      WHERE ${LISTED} AND EXISTS (SELECT 1 FROM plugin_tags t WHERE t.slug = p.slug AND t.tag = ?)
      ${order}`;
  }
  // An EXISTS would become a join, which PostgreSQL's generic plan (not knowing the tag) makes
  // a hash join of every plugin, sorted; a probe per plugin (`LIMIT 1`) keeps the walk.
  return `SELECT ${COLUMNS}, ${total} FROM plugins p
      CROSS JOIN LATERAL (SELECT 1 FROM plugin_tags t WHERE t.slug = p.slug AND t.tag = ? LIMIT 1) t
    WHERE ${LISTED} ${order}`;
}

/**
 * How many plugins a walk may visit (see {@link MatchCounts}): SQLite, the largest search id;
 * PostgreSQL, the plugins as its statistics estimate them. Counting them read every plugin on
 * a table whose pages were not all marked visible. Unknown (-1) until the table is first
 * analyzed: then never walk (taken as 0, a walk chosen by it read 7,500 plugins for a page of
 * `sl`, 105 ms, before walks were capped).
 */
function walkedText(dialect: Dialect): string {
  return dialect === 'postgres'
    ? `(SELECT CASE WHEN reltuples < 0 THEN 'Infinity'::float8 ELSE reltuples END
      FROM pg_class WHERE oid = 'plugins'::regclass)`
    : '(SELECT coalesce(max(rowid), 0) FROM plugin_search)';
}

/** The counts of a tag as {@link MatchCounts}: its plugins are its matches and its names. */
export function tagCountsText(dialect: Dialect): string {
  return `SELECT
  (SELECT count(*) FROM plugin_tags WHERE tag = ?) AS matches,
  (SELECT count(*) FROM plugin_tags WHERE tag = ?) AS names,
  ${walkedText(dialect)} AS ids`;
}

/** What a query's previous plans counted: its matches, its name matches, the plugins a walk may visit. */
export interface MatchCounts {
  matches: number;
  names: number;
  ids: number;
}

/**
 * The counts of {@link MatchCounts}, in one statement: SQLite, the full-text index only;
 * PostgreSQL, one read of the matches the GIN index finds.
 */
export function countsText(dialect: Dialect): string {
  if (dialect === 'postgres') {
    return `SELECT count(*) AS matches,
      count(*) FILTER (WHERE p.search_name @@ ${PG_ROW_QUERY}) AS names,
      ${walkedText(dialect)} AS ids
    FROM plugins p WHERE p.search_all @@ to_tsquery('simple', ?)`;
  }
  return `SELECT
  (SELECT count(*) FROM plugin_search WHERE plugin_search MATCH ?) AS matches,
  (SELECT count(*) FROM plugin_search WHERE plugin_search MATCH ?) AS names,
  ${walkedText(dialect)} AS ids`;
}

/** Parameters of {@link countsText}, in placeholder order. */
export function countsParams(dialect: Dialect, query: SearchQuery): unknown[] {
  if (dialect === 'postgres') return [tsTerms(query.words), tsTerms(query.words)];
  return [ftsTerms('name tags description', query.words), ftsTerms('name', query.words)];
}

/**
 * Whether the walk is the cheaper plan: the names fill the page, and the walk's expected
 * length (`offset + limit` over the density of name matches among the search ids) is shorter
 * than the matches the ranked plan would rank.
 */
export function walkWins(query: SearchQuery, counts: MatchCounts): boolean {
  const n = query.offset + query.limit;
  return counts.names >= n && (n * counts.ids) / counts.names < counts.matches;
}

/**
 * How much shorter than reading every name from the index the walk must be expected to be
 * before it is taken. Its length is a guess from the density of names among the search ids,
 * and popularity ties are in slug order, where slugs start like names: the names of `sen`
 * (`sentry`, `sendgrid`) came after 7,000 plugins where the density promised 400 (2 ms on
 * SQLite, against 0.3 ms read from the index). Reading from the index costs one lookup per
 * name, known in advance.
 */
const WALK_MARGIN = 2;

/**
 * How a query's names-first page reads its names, or `undefined` when the ranked plan is
 * needed: the names must fill the page (`offset + limit` of them). Then the names-first plan
 * always wins, since the ranked plan reads every match and the names are some of them; the
 * walk is taken only when its expected length is {@link WALK_MARGIN} times shorter than the
 * names.
 */
export function namesPlan(query: SearchQuery, counts: MatchCounts): NamesRead | undefined {
  const n = query.offset + query.limit;
  if (counts.names < n) return undefined;
  const walk = (n * counts.ids) / counts.names;
  return walk * WALK_MARGIN <= counts.names ? 'walk' : 'index';
}

/** Most queries whose counts are remembered; all are forgotten when it is reached. */
const MAX_COUNTED = 4096;
/** How long counts are kept before all are forgotten (the catalogue changes under them). */
const COUNTS_MS = 60_000;

/**
 * Counts of recent queries, per store: they only choose the plan (a stale one costs time, never
 * a wrong page), so they are kept for a minute, or until the map is full.
 */
export class PlanCounts {
  private readonly counts = new Map<string, MatchCounts>();
  private since = Date.now();

  get(words: readonly string[]): MatchCounts | undefined {
    if (Date.now() - this.since > COUNTS_MS) {
      this.counts.clear();
      this.since = Date.now();
    }
    return this.counts.get(words.join(' '));
  }

  set(words: readonly string[], counts: MatchCounts): void {
    if (this.counts.size >= MAX_COUNTED) this.counts.clear();
    this.counts.set(words.join(' '), counts);
  }

  delete(words: readonly string[]): void {
    this.counts.delete(words.join(' '));
  }
}
