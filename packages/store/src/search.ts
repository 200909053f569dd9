import { searchWords, type PluginRecord, type SearchQuery } from '@weft/core';
import type { Dialect } from './database.js';
import type { Row, SqlRunner } from './registry-reads.js';
import { PLUGIN_COLUMNS, toPluginRecord } from './rows.js';
import {
  COLUMNS,
  countsParams,
  countsText,
  ftsTerms,
  limitOffset,
  LISTED,
  namesPlan,
  PG_ROW_QUERY,
  PlanCounts,
  slugOrder,
  tagCountsText,
  tagWalkText,
  tsTerms,
  walkParams,
  walkText,
  walkWins,
  type MatchCounts,
} from './search-walk.js';

const TAG_FILTER = 'AND EXISTS (SELECT 1 FROM plugin_tags t WHERE t.slug = p.slug AND t.tag = ?)';
const KIND_FILTER = 'AND p.kind = ?';

/** Which filters a query has: the tag's, then the kind's. */
interface Filters {
  tag: boolean;
  kind: boolean;
}

/**
 * PostgreSQL: the tag probed per match (`OFFSET 0` keeps the subquery from becoming a join):
 * as a join it read every plugin of the tag (1,333 here) to hash them, for matches the GIN
 * index had already narrowed to the plugins with the tag's words (84 for `drive` in `files`).
 */
const PG_TAG_FILTER =
  'AND EXISTS (SELECT 1 FROM plugin_tags t WHERE t.slug = p.slug AND t.tag = ? OFFSET 0)';

function filterText(dialect: Dialect, filters: Filters): string {
  const tag = dialect === 'postgres' ? PG_TAG_FILTER : TAG_FILTER;
  return `${filters.tag ? tag : ''} ${filters.kind ? KIND_FILTER : ''}`;
}

/**
 * The matching plugins with their rank, from the database's own full-text index: every word
 * matches somewhere, or the whole query is the slug; the rank says where — 0: the whole query
 * is the slug or the name; 1: every word in the name; 2: every word in the tags; 3: elsewhere
 * (description). Only narrow columns are ranked and sorted; the page's rows are read
 * afterwards. Placeholders are filled by {@link matchParams}.
 *
 * SQLite: each full-text match joins `plugins_search_rank`, an index of the plugins by search
 * id that holds every column ranking reads, so no match reads its plugin row (before, every
 * match read its whole row). PostgreSQL reads the rows the GIN index finds.
 */
function matchesText(dialect: Dialect, filters: Filters): string {
  const filter = filterText(dialect, filters);
  if (dialect === 'postgres') {
    // The GIN index is asked for the words and a tag's words (see matchParams); ranked by the
    // words alone.
    return `SELECT p.slug, p.downloads, CASE WHEN p.slug = ? OR p.name_key = ? THEN 0
        WHEN p.search_name @@ ${PG_ROW_QUERY} THEN 1 WHEN p.search_tags @@ ${PG_ROW_QUERY} THEN 2
        ELSE 3 END AS rank
      FROM plugins p
      WHERE (p.search_all @@ to_tsquery('simple', ?) OR p.slug = ?) AND ${LISTED} ${filter}`;
  }
  // A slug is not in the full-text index (its words may be nowhere in the name): the second
  // branch finds it when the first does not (its words do not match). Not a UNION, which
  // put every match of the first branch in a temporary b-tree to drop one duplicate.
  return `SELECT p.slug, p.downloads, CASE WHEN p.slug = ? OR p.name_key = ? THEN 0
      WHEN s.rowid IN (SELECT rowid FROM plugin_search WHERE plugin_search MATCH ?) THEN 1
      WHEN s.rowid IN (SELECT rowid FROM plugin_search WHERE plugin_search MATCH ?) THEN 2
      ELSE 3 END AS rank
    FROM plugin_search s JOIN plugins p INDEXED BY plugins_search_rank
      ON p.search_id = s.rowid AND ${LISTED}
    WHERE plugin_search MATCH ? ${filter}
    UNION ALL
    SELECT p.slug, p.downloads, 0 AS rank FROM plugins p
    WHERE p.slug = ? AND ${LISTED} ${filter} AND NOT EXISTS (SELECT 1 FROM plugin_search x
      WHERE x.rowid = p.search_id AND plugin_search MATCH ?)`;
}

/**
 * One page of ranked matches with the count of all of them, in one statement: the matches are
 * read once (a CTE used twice is kept), the page keeps only its best `offset + limit` while
 * sorting (no sort of every match, as a window count over them needed) and the total counts
 * the kept matches.
 */
function wordsPageText(dialect: Dialect, matches: string): string {
  const slug = dialect === 'postgres' ? 'COLLATE "C"' : '';
  return `WITH m AS MATERIALIZED (${matches}),
    page AS (SELECT slug, rank, downloads FROM m
      ORDER BY rank, downloads DESC, slug ${slug} ${limitOffset(dialect)})
    SELECT ${COLUMNS}, (SELECT count(*) FROM m) AS total FROM page JOIN plugins p ON p.slug = page.slug
    ORDER BY page.rank, page.downloads DESC, page.slug ${slug}`;
}

/**
 * The listed plugins (of a tag, of a kind) without words: all rank 0, so in the order of
 * `plugins_listed` / `plugins_listed_kind` (downloads, then slug), which the page walks for
 * `offset + limit` entries and stops; a tag's plugins come from `plugin_tags_tag`, each then
 * read by its slug. The total is counted from the same indexes.
 */
function browseFrom(dialect: Dialect, filters: Filters): string {
  const kind = filters.kind ? KIND_FILTER : '';
  if (!filters.tag) return `FROM plugins p WHERE ${LISTED} ${kind}`;
  if (dialect === 'sqlite') {
    return `FROM plugin_tags t JOIN plugins p ON p.slug = t.slug WHERE t.tag = ? AND ${LISTED} ${kind}`;
  }
  // PostgreSQL's generic plan (what a named statement runs after five calls) knows neither
  // the tag nor the page size, and then reads every plugin to hash-join them with the tag's;
  // reading each of the tag's plugins by its slug is what the fence (`OFFSET 0`) keeps.
  return `FROM plugin_tags t CROSS JOIN LATERAL
      (SELECT * FROM plugins p WHERE p.slug = t.slug AND ${LISTED} OFFSET 0) p
    WHERE t.tag = ? ${kind}`;
}

function browsePageText(dialect: Dialect, filters: Filters): string {
  const from = browseFrom(dialect, filters);
  return `SELECT ${COLUMNS}, (SELECT count(*) ${from}) AS total ${from}
    ORDER BY p.downloads DESC, ${slugOrder(dialect)} ${limitOffset(dialect)}`;
}

const texts = new Map<string, { page: string; count: string }>();

function textsOf(dialect: Dialect, words: boolean, filters: Filters) {
  const key = `${dialect}/${words}/${filters.tag}/${filters.kind}`;
  let found = texts.get(key);
  if (!found) {
    if (words) {
      const matches = matchesText(dialect, filters);
      found = {
        page: wordsPageText(dialect, matches),
        count: `SELECT count(*) AS n FROM (${matches}) m`,
      };
    } else {
      found = {
        page: browsePageText(dialect, filters),
        count: `SELECT count(*) AS n ${browseFrom(dialect, filters)}`,
      };
    }
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
  // A tag asked for is also asked of the full-text index, where intersecting it costs little:
  // only the plugins whose tags have its words are then ranked and probed for the tag itself.
  const tagWords = query.tag === undefined ? [] : searchWords(query.tag);
  if (dialect === 'postgres') {
    // PostgreSQL indexes all words together: a plugin with the tag has its words somewhere.
    const terms = tsTerms(query.words);
    const found = [terms, ...tagWords].join(' & ');
    return [query.exact, query.exact, terms, terms, found, query.exact, ...tag];
  }
  const tagged = (terms: string) =>
    tagWords.length === 0 ? terms : `${terms} AND {tags} : "${tagWords.join(' ')}"`;
  const all = tagged(ftsTerms('name tags description', query.words));
  return [
    query.exact,
    query.exact,
    tagged(ftsTerms('name', query.words)),
    tagged(ftsTerms('tags', query.words)),
    all,
    ...tag,
    query.exact,
    ...tag,
    all,
  ];
}

/** Parameters of the page statement, in placeholder order. */
function pageParams(query: SearchQuery, params: unknown[]): unknown[] {
  // Without words the filters come twice: in the count, then in the page.
  const filters = query.words.length === 0 ? [...params, ...params] : params;
  return [...filters, query.limit, query.offset];
}

/**
 * Runs a ranked search in the database's own full-text index (SQLite FTS5, PostgreSQL
 * tsvector) in one statement. `query.words` and `query.exact` are folded by core's
 * `searchWords` / `exactKey`, as the index is. Ranking: exact slug or name match, then all words in the name,
 * then in the tags, then elsewhere (description); ties by downloads, then slug (bytewise).
 * Every shape is served by an index (see `search-plan.test.ts`).
 */
export async function searchPlugins(
  runner: SqlRunner,
  query: SearchQuery,
): Promise<{ total: number; plugins: PluginRecord[] }> {
  const walked =
    query.words.length > 0 ? await walkedPage(runner, query) : await tagPage(runner, query);
  if (walked) return walked;
  return rankedPage(runner, query);
}

/** The remembered counts of `key`, counted by `text` with `params` when not remembered. */
async function countsOf(
  runner: SqlRunner,
  key: readonly string[],
  text: string,
  params: unknown[],
): Promise<{ plans: PlanCounts; counts: MatchCounts }> {
  let plans = planCounts.get(runner);
  if (!plans) planCounts.set(runner, (plans = new PlanCounts()));
  let counts = plans.get(key);
  if (!counts) {
    const [row] = await runner.all(text, params);
    counts = {
      matches: Number(row?.['matches'] ?? 0),
      names: Number(row?.['names'] ?? 0),
      ids: Number(row?.['ids'] ?? 0),
    };
    plans.set(key, counts);
  }
  return { plans, counts };
}

/**
 * A tag without words or kind: the page by the tag's walk of `search-walk.ts` when the tag is
 * common enough for it to be cheaper; `undefined` otherwise.
 */
async function tagPage(runner: SqlRunner, query: SearchQuery) {
  if (query.tag === undefined || query.kind !== undefined) return undefined;
  const key = ['\0tag', query.tag];
  const { plans, counts } = await countsOf(runner, key, tagCountsText(runner.dialect), [
    query.tag,
    query.tag,
  ]);
  if (!walkWins(query, counts)) return undefined;
  const rows = await runner.allAsJson(
    tagWalkText(runner.dialect),
    tagWalkParams(query),
    PAGE_FIELDS,
  );
  if (rows.length === 0) {
    // The counts were stale (the page is past the end): counted again next time.
    plans.delete(key);
    return undefined;
  }
  return { total: Number(rows[0]!['total']), plugins: rows.map(toRecord) };
}

const tagWalkParams = (query: SearchQuery) => [query.tag, query.tag, query.limit, query.offset];

/** The plans' counts remembered per store (see `search-walk.ts`). */
const planCounts = new WeakMap<SqlRunner, PlanCounts>();

/**
 * Words without a tag or kind: the page by the walk of `search-walk.ts` when its counts say
 * the walk is cheaper and it fills the page; `undefined` otherwise.
 */
async function walkedPage(runner: SqlRunner, query: SearchQuery) {
  if (query.tag !== undefined || query.kind !== undefined) return undefined;
  const { dialect } = runner;
  const { plans, counts } = await countsOf(
    runner,
    query.words,
    countsText(dialect),
    countsParams(dialect, query),
  );
  const read = namesPlan(query, counts);
  if (read === undefined) return undefined;
  const rows = await runner.allAsJson(
    walkText(dialect, read),
    walkParams(dialect, query, counts.matches, read),
    PAGE_FIELDS,
  );
  if (rows.length < query.limit) {
    // The names did not fill the page: the counts were stale, or (PostgreSQL) the walk gave up
    // where the names are rarer than their density promised. Not walked again until the
    // counts are forgotten.
    plans.set(query.words, { ...counts, names: 0 });
    return undefined;
  }
  return { total: Number(rows[0]!['total']), plugins: rows.map(toRecord) };
}

/** The fields of a page's rows: a plugin summary's columns and the total. */
const PAGE_FIELDS = [...PLUGIN_COLUMNS, 'total'];

const toRecord = (row: Row) => toPluginRecord(row as Parameters<typeof toPluginRecord>[0]);

/** The page by the ranked plan: every match ranked, the best `offset + limit` kept. */
async function rankedPage(runner: SqlRunner, query: SearchQuery) {
  const { page, count } = textsOf(runner.dialect, query.words.length > 0, {
    tag: query.tag !== undefined,
    kind: query.kind !== undefined,
  });
  const params = matchParams(runner.dialect, query);
  const rows = await runner.allAsJson(page, pageParams(query, params), PAGE_FIELDS);
  let total = rows.length > 0 ? Number(rows[0]!['total']) : 0;
  if (rows.length === 0 && query.offset > 0) {
    const [counted] = await runner.all(count, params);
    total = Number(counted?.['n'] ?? 0);
  }
  return { total, plugins: rows.map(toRecord) };
}

/** The statements a search may run, with their parameters (for plan tests). */
export function searchStatements(
  dialect: Dialect,
  query: SearchQuery,
  /** The most plugins a walk visits (see `walkParams`): its counted matches. */
  visits = 2 ** 31 - 1,
): { text: string; params: unknown[] }[] {
  const { page, count } = textsOf(dialect, query.words.length > 0, {
    tag: query.tag !== undefined,
    kind: query.kind !== undefined,
  });
  const params = matchParams(dialect, query);
  const walk =
    query.words.length > 0 && !query.tag && !query.kind
      ? [
          { text: countsText(dialect), params: countsParams(dialect, query) },
          { text: walkText(dialect), params: walkParams(dialect, query, visits) },
          {
            text: walkText(dialect, 'index'),
            params: walkParams(dialect, query, visits, 'index'),
          },
        ]
      : query.words.length === 0 && query.tag && !query.kind
        ? [
            { text: tagCountsText(dialect), params: [query.tag, query.tag] },
            { text: tagWalkText(dialect), params: tagWalkParams(query) },
          ]
        : [];
  return [{ text: page, params: pageParams(query, params) }, { text: count, params }, ...walk];
}
