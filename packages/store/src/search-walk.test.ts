import { randomBytes } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchQuery } from '@weft/core';
import type { Database, Dialect } from './database.js';
import { migrate } from './migrations.js';
import { SqlRunner } from './registry-reads.js';
import { searchPlugins, searchStatements } from './search.js';
import {
  countsParams,
  countsText,
  namesPlan,
  tagWalkText,
  walkParams,
  walkText,
} from './search-walk.js';

const PLUGINS = 3000;
const url = process.env['WEFT_TEST_DATABASE_URL'];

function query(q: string, more: Partial<SearchQuery> = {}): SearchQuery {
  const words = [...new Set(q.split(' ').filter((w) => w !== ''))];
  return { words, exact: q, tag: undefined, limit: 20, offset: 0, ...more };
}

/**
 * A catalogue where short prefixes match most plugins in every column: names `<noun> <verb> i`,
 * tags that start like the names' words, descriptions with `records`, download counts with many
 * ties (broken by slug), plugins named exactly like a query, a slug that is a query without
 * its words anywhere, and unlisted plugins (no tag or full-text row).
 */
const NOUNS = `'slack','sentry','stripe','redis','sheets','github','drive','notion','s','sl'`;
const VERBS = `'sync','send','relay','report','export','alert','query'`;
const TAGS = `'storage','sales','chat','reports','security'`;

const SQLITE_SEED = `BEGIN;
  CREATE TEMP TABLE words (kind, k, word);
  INSERT INTO words SELECT 'noun', key, value FROM json_each(json_array(${NOUNS}));
  INSERT INTO words SELECT 'verb', key, value FROM json_each(json_array(${VERBS}));
  INSERT INTO words SELECT 'tag', key, value FROM json_each(json_array(${TAGS}));
  WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ${PLUGINS}),
    s AS (SELECT i,
      (SELECT word FROM words WHERE kind = 'noun' AND k = i % 10) AS noun,
      (SELECT word FROM words WHERE kind = 'verb' AND k = (i / 10) % 7) AS verb,
      (SELECT word FROM words WHERE kind = 'tag' AND k = (i * 3) % 5) AS tag FROM n)
  INSERT INTO plugins (slug, slug_key, owner, created_at, updated_at, downloads,
    latest_version, name, description, author, tags, search_id, name_key, kind)
  SELECT noun || '-' || verb || '-' || i, noun || verb || i, 'acme', '2026-01-01',
    '2026-01-01', (i * 7919) % 50, CASE WHEN i % 17 = 0 THEN NULL ELSE '1.0.0' END,
    CASE WHEN i % 211 = 0 THEN noun ELSE noun || ' ' || verb || ' ' || i END,
    verb || ' records of ' || noun, 'acme', json_array(tag), i + 1,
    CASE WHEN i % 211 = 0 THEN noun ELSE noun || ' ' || verb || ' ' || i END, 'plugin'
  FROM s;
  INSERT INTO plugins (slug, slug_key, owner, created_at, updated_at, downloads,
    latest_version, name, description, author, tags, search_id, name_key, kind)
  VALUES ('se', 'se', 'acme', '2026-01-01', '2026-01-01', 3, '1.0.0', 'Other', 'Other',
    'acme', '[]', ${PLUGINS + 1}, 'other', 'plugin');
  INSERT INTO plugin_tags (slug, tag)
    SELECT slug, tags ->> 0 FROM plugins WHERE latest_version IS NOT NULL AND tags <> '[]';
  INSERT INTO plugin_search (rowid, slug, name, tags, description)
    SELECT search_id, slug, name_key, coalesce(tags ->> 0, ''), lower(description)
    FROM plugins WHERE latest_version IS NOT NULL;
  COMMIT;`;

/** The same catalogue on PostgreSQL: the words in the plugins' own tsvector columns. */
const POSTGRES_SEED = `BEGIN;
  INSERT INTO plugins (slug, slug_key, owner, created_at, updated_at, downloads,
    latest_version, name, description, author, tags, name_key, kind)
  SELECT noun || '-' || verb || '-' || i, noun || verb || i, 'acme', '2026-01-01',
    '2026-01-01', (i * 7919) % 50, CASE WHEN i % 17 = 0 THEN NULL ELSE '1.0.0' END,
    CASE WHEN i % 211 = 0 THEN noun ELSE noun || ' ' || verb || ' ' || i END,
    verb || ' records of ' || noun, 'acme', json_build_array(tag)::text,
    CASE WHEN i % 211 = 0 THEN noun ELSE noun || ' ' || verb || ' ' || i END, 'plugin'
  FROM (SELECT i, (ARRAY[${NOUNS}])[i % 10 + 1] AS noun, (ARRAY[${VERBS}])[(i / 10) % 7 + 1]
    AS verb, (ARRAY[${TAGS}])[(i * 3) % 5 + 1] AS tag
    FROM generate_series(0, ${PLUGINS - 1}) i) s;
  INSERT INTO plugins (slug, slug_key, owner, created_at, updated_at, downloads,
    latest_version, name, description, author, tags, name_key, kind)
  VALUES ('se', 'se', 'acme', '2026-01-01', '2026-01-01', 3, '1.0.0', 'Other', 'Other',
    'acme', '[]', 'other', 'plugin');
  INSERT INTO plugin_tags (slug, tag)
    SELECT slug, tags::json ->> 0 FROM plugins WHERE latest_version IS NOT NULL AND tags <> '[]';
  UPDATE plugins SET search_name = to_tsvector('simple', name_key),
    search_tags = to_tsvector('simple', coalesce(tags::json ->> 0, '')),
    search_all = to_tsvector('simple', name_key) || to_tsvector('simple', coalesce(tags::json ->> 0, ''))
      || to_tsvector('simple', lower(description))
    WHERE latest_version IS NOT NULL;
  COMMIT;`;

/**
 * All but five listed plugins with a name word starting with `s` are unlisted: the names no
 * longer fill the page, tag matches (`storage`, `sales`, `security`) come after them.
 */
const SQLITE_UNLIST = `BEGIN;
  CREATE TEMP TABLE gone AS SELECT p.slug, p.search_id FROM plugins p
    WHERE p.search_id IN (SELECT rowid FROM plugin_search
      WHERE plugin_search MATCH '{name} : "s"*') ORDER BY p.search_id LIMIT -1 OFFSET 5;
  DELETE FROM plugin_search WHERE rowid IN (SELECT search_id FROM gone);
  DELETE FROM plugin_tags WHERE slug IN (SELECT slug FROM gone);
  UPDATE plugins SET latest_version = NULL WHERE slug IN (SELECT slug FROM gone);
  COMMIT;`;

const POSTGRES_UNLIST = `BEGIN;
  CREATE TEMP TABLE gone AS SELECT slug FROM plugins
    WHERE search_name @@ to_tsquery('simple', 's:*') ORDER BY slug COLLATE "C" OFFSET 5;
  DELETE FROM plugin_tags WHERE slug IN (SELECT slug FROM gone);
  UPDATE plugins SET latest_version = NULL, search_all = '', search_name = '', search_tags = ''
    WHERE slug IN (SELECT slug FROM gone);
  COMMIT;`;

/** The catalogue in a new database of `kind`: a runner on it, and how to change it by SQL. */
async function openCatalogue(kind: Dialect) {
  if (kind === 'sqlite') {
    const database = new BetterSqlite3(':memory:');
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
    await migrate(db, 'sqlite');
    database.exec(SQLITE_SEED);
    return {
      runner: new SqlRunner(db, 'sqlite', { sqlite: database }),
      unlist: () => database.exec(SQLITE_UNLIST),
      close: () => db.destroy(),
    };
  }
  const schema = `weft_test_${randomBytes(6).toString('hex')}`;
  const pool = new pg.Pool({ connectionString: url, max: 2, options: `-c search_path=${schema}` });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  await sql`CREATE SCHEMA ${sql.id(schema)}`.execute(db);
  await migrate(db, 'postgres', schema);
  await pool.query(POSTGRES_SEED);
  await pool.query('ANALYZE plugins');
  return {
    runner: new SqlRunner(db, 'postgres', { pool }),
    unlist: () => pool.query(POSTGRES_UNLIST),
    close: async () => {
      await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await db.destroy();
    },
  };
}

for (const kind of ['sqlite', 'postgres'] as const) {
  describe.skipIf(kind === 'postgres' && !url)(
    `the walk plan of a search gives the ranked plan’s pages (${kind})`,
    () => {
      let catalogue: Awaited<ReturnType<typeof openCatalogue>>;
      let runner: SqlRunner;

      beforeAll(async () => {
        catalogue = await openCatalogue(kind);
        runner = catalogue.runner;
      }, 60_000);
      afterAll(() => catalogue.close());

      const QUERIES = ['s', 'sl', 'se', 're', 'r', 'st', 'sync', 's sync', 'slack', 'q', 'e'];
      const PAGES: Partial<SearchQuery>[] = [
        {},
        { limit: 1 },
        { limit: 100 },
        { offset: 20 },
        { offset: 57, limit: 7 },
        { offset: 400 },
        { offset: 1500, limit: 100 },
        { offset: 2900 },
      ];

      it.each(['walk', 'index'] as const)(
        'every full names-first page (names read by %s) is the ranked page, with the same total',
        async (read) => {
          let walked = 0;
          for (const q of QUERIES) {
            for (const page of PAGES) {
              const search = query(q, page);
              const [ranked] = searchStatements(kind, search);
              const expected = await runner.all(ranked!.text, ranked!.params);
              const rows = await runner.all(
                walkText(kind, read),
                walkParams(kind, search, 2 ** 31 - 1, read),
              );
              if (rows.length < search.limit) continue;
              walked++;
              expect(
                rows.map((r) => r['slug']),
                `${q} ${JSON.stringify(page)}`,
              ).toEqual(expected.map((r) => r['slug']));
              expect(rows[0]!['total'], q).toBe(expected[0]!['total']);
            }
          }
          expect(walked).toBeGreaterThan(30);
        },
      );

      it('a search gives the ranked page whichever plan its counts choose', async () => {
        const chosen = { walk: 0, index: 0 };
        for (const q of QUERIES) {
          for (const page of PAGES) {
            const search = query(q, page);
            const [row] = await runner.all(countsText(kind), countsParams(kind, search));
            const counts = {
              matches: Number(row!['matches']),
              names: Number(row!['names']),
              ids: Number(row!['ids']),
            };
            const read = namesPlan(search, counts);
            if (read) chosen[read]++;
            const [ranked] = searchStatements(kind, search);
            const expected = await runner.all(ranked!.text, ranked!.params);
            const found = await searchPlugins(runner, search);
            expect(
              found.plugins.map((p) => p.slug),
              `${q} ${JSON.stringify(page)}`,
            ).toEqual(expected.map((r) => r['slug']));
            if (expected.length > 0) expect(found.total).toBe(Number(expected[0]!['total']));
          }
        }
        expect(chosen.walk).toBeGreaterThan(5);
        expect(chosen.index).toBeGreaterThan(5);
      });

      it('a tag walked in popularity order gives the sorted page and total', async () => {
        let walked = 0;
        for (const tag of ['storage', 'sales', 'chat', 'reports', 'security', 'none']) {
          for (const page of PAGES) {
            const search = { ...query('', page), tag };
            const [sorted] = searchStatements(kind, search);
            const expected = await runner.all(sorted!.text, sorted!.params);
            const rows = await runner.all(tagWalkText(kind), [
              tag,
              tag,
              search.limit,
              search.offset,
            ]);
            expect(
              rows.map((r) => r['slug']),
              `${tag} ${JSON.stringify(page)}`,
            ).toEqual(expected.map((r) => r['slug']));
            if (rows.length > 0) walked++;
            if (rows.length > 0) expect(rows[0]!['total']).toBe(expected[0]!['total']);
            const found = await searchPlugins(runner, search);
            expect(found.plugins.map((p) => p.slug)).toEqual(expected.map((r) => r['slug']));
            if (rows.length > 0) expect(found.total).toBe(Number(expected[0]!['total']));
          }
        }
        expect(walked).toBeGreaterThan(20);
      });

      it('counts gone stale (names unlisted since) fall back to the ranked plan', async () => {
        const search = query('s');
        await searchPlugins(runner, search);
        await catalogue.unlist();
        const [ranked] = searchStatements(kind, search);
        const expected = await runner.all(ranked!.text, ranked!.params);
        const found = await searchPlugins(runner, search);
        expect(expected.length).toBe(20);
        expect(found.plugins.map((p) => p.slug)).toEqual(expected.map((r) => r['slug']));
        expect(found.total).toBe(Number(expected[0]!['total']));
      });
    },
  );
}
