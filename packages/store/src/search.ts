import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { PluginRecord, SearchQuery } from '@weft/core';
import type { Database, Dialect } from './database.js';
import { PLUGIN_COLUMNS, toPluginRecord } from './rows.js';

/** Full-text predicates of one dialect: all words match somewhere, in the name, in the tags. */
interface Predicates {
  any: RawBuilder<SqlBool>;
  name: RawBuilder<SqlBool>;
  tags: RawBuilder<SqlBool>;
}

/** SQLite FTS5: every word as a prefix term, optionally restricted to one column. */
function sqlitePredicates(words: readonly string[]): Predicates {
  const terms = words.map((w) => `"${w.replaceAll('"', '""')}"*`).join(' AND ');
  const match = (expression: string) =>
    sql<SqlBool>`p.slug IN (SELECT slug FROM plugin_search WHERE plugin_search MATCH ${expression})`;
  return {
    any: match(`{name tags description} : (${terms})`),
    name: match(`{name} : (${terms})`),
    tags: match(`{tags} : (${terms})`),
  };
}

/** PostgreSQL full text: `word:*` prefix terms joined by `&` over stored tsvectors. */
function postgresPredicates(words: readonly string[]): Predicates {
  const query = words.map((w) => `${w}:*`).join(' & ');
  const tsquery = sql`to_tsquery('simple', ${query})`;
  return {
    any: sql<SqlBool>`p.search_all @@ ${tsquery}`,
    name: sql<SqlBool>`p.search_name @@ ${tsquery}`,
    tags: sql<SqlBool>`p.search_tags @@ ${tsquery}`,
  };
}

/**
 * Runs a ranked search in the database's own full-text index. Ranking: exact slug or name
 * match, then all words in the name, then in the tags, then elsewhere (description); ties by
 * downloads, then slug.
 */
export async function searchPlugins(
  db: Kysely<Database>,
  dialect: Dialect,
  query: SearchQuery,
): Promise<{ total: number; plugins: PluginRecord[] }> {
  let base = db.selectFrom('plugins as p').where('p.latest_version', 'is not', null);
  if (query.tag !== undefined) {
    const tag = query.tag;
    base = base.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('plugin_tags as t')
          .select('t.slug')
          .whereRef('t.slug', '=', 'p.slug')
          .where('t.tag', '=', tag),
      ),
    );
  }
  let rank: RawBuilder<number> = sql<number>`0`;
  if (query.words.length > 0) {
    const predicates =
      dialect === 'postgres' ? postgresPredicates(query.words) : sqlitePredicates(query.words);
    base = base.where(predicates.any);
    rank = sql<number>`CASE WHEN p.slug = ${query.exact} OR lower(p.name) = ${query.exact} THEN 0
      WHEN ${predicates.name} THEN 1 WHEN ${predicates.tags} THEN 2 ELSE 3 END`;
  }
  const rows = await base
    .select(PLUGIN_COLUMNS.map((c) => `p.${c}` as const))
    .select([rank.as('rank'), sql<number | string>`count(*) over ()`.as('total')])
    .orderBy('rank')
    .orderBy('p.downloads', 'desc')
    .orderBy('p.slug')
    .limit(query.limit)
    .offset(query.offset)
    .execute();
  let total = rows.length > 0 ? Number(rows[0]!.total) : 0;
  if (rows.length === 0 && query.offset > 0) {
    const counted = await base.select(sql<number | string>`count(*)`.as('n')).executeTakeFirst();
    total = Number(counted?.n ?? 0);
  }
  return { total, plugins: rows.map((row) => toPluginRecord(row)) };
}
