import type { PluginRecord, SearchQuery } from '@weft/core';
import type { Dialect } from './database.js';
import type { Row, SqlRunner } from './registry-reads.js';
import { toPluginRecord } from './rows.js';

const COLUMNS = `p.slug, p.slug_key, p.kind, p.owner, p.created_at, p.updated_at, p.downloads,
  p.latest_version, p.name, p.description, p.author, p.tags`;
const TAG_FILTER = 'AND EXISTS (SELECT 1 FROM plugin_tags t WHERE t.slug = p.slug AND t.tag = ?)';
const KIND_FILTER = 'AND p.kind = ?';

/** Which filters a query has: the tag's, then the kind's. */
interface Filters {
  tag: boolean;
  kind: boolean;
}

function filterText(filters: Filters): string {
  return `${filters.tag ? TAG_FILTER : ''} ${filters.kind ? KIND_FILTER : ''}`;
}

/**
 * The matching plugins with their rank, from the database's own full-text index: every word
 * matches somewhere, or the whole query is the slug; the rank says where — 0: the whole query
 * is the slug or the name; 1: every word in the name; 2: every word in the tags; 3: elsewhere
 * (description). Only narrow columns are ranked and sorted; the page's rows are read
 * afterwards. Placeholders are filled by {@link matchParams}.
 */
function matchesText(dialect: Dialect, filters: Filters): string {
  const filter = filterText(filters);
  if (dialect === 'postgres') {
    return `SELECT p.slug, p.downloads, CASE WHEN p.slug = ? OR p.name_key = ? THEN 0
        WHEN p.search_name @@ q.query THEN 1 WHEN p.search_tags @@ q.query THEN 2 ELSE 3 END AS rank
      FROM plugins p, (SELECT to_tsquery('simple', ?) AS query) q
      WHERE (p.search_all @@ q.query OR p.slug = ?) AND p.latest_version IS NOT NULL ${filter}`;
  }
  // A slug is not in the full-text index (its words may be nowhere in the name): the second
  // branch finds it; UNION drops the row both branches find (same columns, rank 0).
  return `SELECT p.slug, p.downloads, CASE WHEN p.slug = ? OR p.name_key = ? THEN 0
      WHEN s.rowid IN (SELECT rowid FROM plugin_search WHERE plugin_search MATCH ?) THEN 1
      WHEN s.rowid IN (SELECT rowid FROM plugin_search WHERE plugin_search MATCH ?) THEN 2
      ELSE 3 END AS rank
    FROM plugin_search s JOIN plugins p ON p.search_id = s.rowid
    WHERE plugin_search MATCH ? AND p.latest_version IS NOT NULL ${filter}
    UNION
    SELECT p.slug, p.downloads, 0 AS rank FROM plugins p
    WHERE p.slug = ? AND p.latest_version IS NOT NULL ${filter}`;
}

/** Every listed plugin (no words), rank 0. */
function browseText(filters: Filters): string {
  return `SELECT p.slug, p.downloads, 0 AS rank FROM plugins p
    WHERE p.latest_version IS NOT NULL ${filterText(filters)}`;
}

/** One page of ranked matches with the count of all of them, in one statement. */
function pageText(dialect: Dialect, matches: string): string {
  const slugOrder = dialect === 'postgres' ? 'COLLATE "C"' : '';
  return `WITH m AS (${matches}),
    page AS (SELECT slug, rank, downloads, count(*) OVER () AS total FROM m
      ORDER BY rank, downloads DESC, slug ${slugOrder} LIMIT ? OFFSET ?)
    SELECT ${COLUMNS}, page.total FROM page JOIN plugins p ON p.slug = page.slug
    ORDER BY page.rank, page.downloads DESC, page.slug ${slugOrder}`;
}

const texts = new Map<string, { page: string; count: string }>();

function textsOf(dialect: Dialect, words: boolean, filters: Filters) {
  const key = `${dialect}/${words}/${filters.tag}/${filters.kind}`;
  let found = texts.get(key);
  if (!found) {
    const matches = words ? matchesText(dialect, filters) : browseText(filters);
    found = { page: pageText(dialect, matches), count: `SELECT count(*) AS n FROM (${matches}) m` };
    texts.set(key, found);
  }
  return found;
}

/** Parameters of the matches query, in placeholder order. */
function matchParams(dialect: Dialect, query: SearchQuery): unknown[] {
  const tag = [
    ...(query.tag === undefined ? [] : [query.tag]),
    ...(query.kind === undefined ? [] : [query.kind]),
  ];
  if (query.words.length === 0) return tag;
  if (dialect === 'postgres') {
    const tsquery = query.words.map((w) => `${w}:*`).join(' & ');
    return [query.exact, query.exact, tsquery, query.exact, ...tag];
  }
  const terms = query.words.map((w) => `"${w.replaceAll('"', '""')}"*`).join(' AND ');
  return [
    query.exact,
    query.exact,
    `{name} : (${terms})`,
    `{tags} : (${terms})`,
    `{name tags description} : (${terms})`,
    ...tag,
    query.exact,
    ...tag,
  ];
}

/**
 * Runs a ranked search in the database's own full-text index (SQLite FTS5, PostgreSQL
 * tsvector) in one statement. `query.words` and `query.exact` are folded by core's
 * `searchWords` / `exactKey`, as the index is. Ranking: exact slug or name match, then all words in the name,
 * then in the tags, then elsewhere (description); ties by downloads, then slug (bytewise).
 */
export async function searchPlugins(
  runner: SqlRunner,
  query: SearchQuery,
): Promise<{ total: number; plugins: PluginRecord[] }> {
  const { page, count } = textsOf(runner.dialect, query.words.length > 0, {
    tag: query.tag !== undefined,
    kind: query.kind !== undefined,
  });
  const params = matchParams(runner.dialect, query);
  const rows = await runner.all(page, [...params, query.limit, query.offset]);
  let total = rows.length > 0 ? Number(rows[0]!['total']) : 0;
  if (rows.length === 0 && query.offset > 0) {
    const [counted] = await runner.all(count, params);
    total = Number(counted?.['n'] ?? 0);
  }
  return {
    total,
    plugins: rows.map((row: Row) => toPluginRecord(row as Parameters<typeof toPluginRecord>[0])),
  };
}
