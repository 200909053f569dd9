import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchQuery } from '@weft/core';
import type { Database } from './database.js';
import { migrate } from './migrations.js';
import { PLAN_MODES, PlanTestDatabase, seqScans, type PlanNode } from './plan-test-support.js';
import { searchStatements } from './search.js';
import { namesPlan } from './search-walk.js';

const PLUGINS = 10_000;
const url = process.env['WEFT_TEST_DATABASE_URL'];

/** `text` with its `?` parameters numbered as PostgreSQL's (`$1`, `$2`...). */
function numbered(text: string): string {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}

/** A search as the registry builds it (words already folded). */
function query(q: string, more: Partial<SearchQuery> = {}): SearchQuery {
  const words = q.split(' ').filter((w) => w !== '');
  return { words, exact: q, tag: undefined, limit: 20, offset: 0, ...more };
}

/**
 * Every shape of search: free text (a word, a one- and two-letter prefix, two words, an exact
 * slug), with a tag or a kind, without words (browse, by tag, by kind, by both), deep pages
 * and a page past the end (which counts again).
 */
const SHAPES: Record<string, SearchQuery> = {
  word: query('slack'),
  'one-letter prefix': query('s'),
  'two-letter prefix': query('sl'),
  'two words': query('slack sync'),
  'exact slug': query('slack-sync-0'),
  'word and tag': query('slack', { tag: 't1' }),
  'word and kind': query('slack', { kind: 'agent' }),
  browse: query(''),
  'browse, deep page': query('', { offset: 5000 }),
  'by tag': query('', { tag: 't1' }),
  'by kind': query('', { kind: 'agent' }),
  'by tag and kind': query('', { tag: 't1', kind: 'agent' }),
  'past the end': query('slack', { offset: 9000 }),
};

/** Shapes without words: their page must come in index order, with no sort of all rows. */
const ORDERED = ['browse', 'browse, deep page', 'by kind'];

/**
 * The words of the seeded plugins: a plugin `github-sync-12` is named `github sync 12`, tagged
 * `t12` (one tag in 40), and a fiftieth are agents.
 */
const NOUNS = `'slack','github','postgres','stripe','notion','sentry','openai','gmail','drive','jira'`;
const VERBS = `'sync','export','notify','report','backup','relay','alert','query'`;

describe('search plans at 10,000 plugins: every shape is served by an index', () => {
  describe('SQLite (EXPLAIN QUERY PLAN)', () => {
    const database = new BetterSqlite3(':memory:');
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });

    beforeAll(async () => {
      await migrate(db, 'sqlite');
      database.exec(`BEGIN;
        CREATE TEMP TABLE words (kind, k, word);
        INSERT INTO words SELECT 'noun', key, value FROM json_each(json_array(${NOUNS}));
        INSERT INTO words SELECT 'verb', key, value FROM json_each(json_array(${VERBS}));
        WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ${PLUGINS}),
          s AS (SELECT i,
            (SELECT word FROM words WHERE kind = 'noun' AND k = i % 10) AS noun,
            (SELECT word FROM words WHERE kind = 'verb' AND k = (i / 10) % 8) AS verb,
            't' || (i % 40) AS tag FROM n)
        INSERT INTO plugins (slug, slug_key, owner, created_at, updated_at, downloads,
          latest_version, name, description, author, tags, search_id, name_key, kind)
        SELECT noun || '-' || verb || '-' || i, noun || verb || i, 'acme', '2026-01-01',
          '2026-01-01', (i * 7919) % 1000, '1.0.0', noun || ' ' || verb || ' ' || i,
          verb || ' records of ' || noun, 'acme', json_array(tag), i + 1,
          noun || ' ' || verb || ' ' || i, CASE WHEN i % 50 = 0 THEN 'agent' ELSE 'plugin' END
        FROM s;
        INSERT INTO plugin_tags (slug, tag) SELECT slug, tags ->> 0 FROM plugins;
        INSERT INTO plugin_search (rowid, slug, name, tags, description)
          SELECT search_id, slug, name_key, tags ->> 0, description FROM plugins;
        COMMIT;`);
      const found = database
        .prepare(`SELECT count(*) AS n FROM plugin_search WHERE plugin_search MATCH '"slack"*'`)
        .get() as { n: number };
      expect(found.n).toBe(PLUGINS / 10);
    });
    afterAll(() => db.destroy());

    /** Scans of whole tables (`SCAN p`, without an index): plugins and tags are read whole. */
    const fullScan = /^SCAN (p|t|plugins|plugin_tags|plugin_versions)$/;

    for (const [shape, search] of Object.entries(SHAPES)) {
      it(shape, () => {
        for (const { text, params } of searchStatements('sqlite', search)) {
          // A bare `?` LIMIT or OFFSET makes SQLite prepare the statement again at each run.
          expect(text).not.toMatch(/\b(LIMIT|OFFSET) \?/);
          const plan = (
            database.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...params) as { detail: string }[]
          ).map((row) => row.detail);
          expect(
            plan.filter((detail) => fullScan.test(detail)),
            plan.join('\n'),
          ).toEqual([]);
        }
        if (ORDERED.includes(shape)) {
          const [page] = searchStatements('sqlite', search);
          const plan = (
            database.prepare(`EXPLAIN QUERY PLAN ${page!.text}`).all(...page!.params) as {
              detail: string;
            }[]
          ).map((row) => row.detail);
          expect(plan.join('\n')).not.toContain('USE TEMP B-TREE FOR ORDER BY');
        }
      });
    }
  });

  describe.skipIf(!url)('PostgreSQL (EXPLAIN, after ANALYZE)', () => {
    const database = new PlanTestDatabase(url!);
    const { pool } = database;

    beforeAll(async () => {
      await database.create();
      await pool.query(`BEGIN;
        INSERT INTO plugins (slug, slug_key, owner, created_at, updated_at, downloads,
          latest_version, name, description, author, tags, name_key, kind)
        SELECT noun || '-' || verb || '-' || i, noun || verb || i, 'acme', '2026-01-01',
          '2026-01-01', (i * 7919) % 1000, '1.0.0', noun || ' ' || verb || ' ' || i,
          verb || ' records of ' || noun, 'acme', json_build_array(tag)::text,
          noun || ' ' || verb || ' ' || i, CASE WHEN i % 50 = 0 THEN 'agent' ELSE 'plugin' END
        FROM (SELECT i, (ARRAY[${NOUNS}])[i % 10 + 1] AS noun, (ARRAY[${VERBS}])[(i / 10) % 8 + 1]
          AS verb, 't' || (i % 40) AS tag FROM generate_series(0, ${PLUGINS - 1}) i) s;
        INSERT INTO plugin_tags (slug, tag) SELECT slug, tags::json ->> 0 FROM plugins;
        UPDATE plugins SET search_name = to_tsvector('simple', name_key),
          search_tags = to_tsvector('simple', tags::json ->> 0),
          search_all = to_tsvector('simple', name_key || ' ' || (tags::json ->> 0) || ' '
            || description);
        COMMIT;`);
      await pool.query('VACUUM ANALYZE plugins');
      await pool.query('VACUUM ANALYZE plugin_tags');
      const { rows } = await pool.query<{ n: string }>(
        `SELECT count(*) AS n FROM plugins WHERE search_all @@ to_tsquery('simple', 'slack:*')`,
      );
      expect(Number(rows[0]!.n)).toBe(PLUGINS / 10);
    }, 60_000);
    afterAll(() => database.drop());

    /**
     * The plan PostgreSQL runs: the registry's reads are named statements, planned with the
     * values of each call first and, after five calls, maybe with a generic plan; both are
     * checked. Shapes that match most plugins (every plugin of a kind, a one-letter prefix, the
     * whole registry) are not among them: there a sequential read of 10,000 rows is the
     * cheaper plan, and PostgreSQL rightly picks it to count them.
     */
    const UNSELECTIVE = ['one-letter prefix', 'browse', 'browse, deep page'];
    /**
     * A kind has two values: a plan that does not know which one is asked for expects half the
     * plugins, and may rightly read them all; knowing `agent` (a fiftieth), it walks
     * `plugins_listed_kind`.
     */
    const CUSTOM_ONLY = ['by kind'];
    /** The plans of `text` (`?` parameters) with `params` as a named statement, in each mode. */
    const plans = (text: string, params: unknown[], modes: string[]) =>
      database.plans(numbered(text), params, modes);

    /**
     * Whether the counts of `search` choose a names-first page (the statements after the ranked
     * page, its count and the walk's counts: the walk, then the names read from the index),
     * which runs only then: the matches it may visit, if so.
     */
    async function walkChosen(search: SearchQuery): Promise<number | undefined> {
      const counts = searchStatements('postgres', search)[2];
      if (!counts) return undefined;
      const text = numbered(counts.text);
      const [row] = (await pool.query<Record<string, string>>(text, counts.params)).rows;
      const [matches, names, ids] = [row!['matches'], row!['names'], row!['ids']].map(Number);
      return namesPlan(search, { matches: matches!, names: names!, ids: ids! })
        ? matches
        : undefined;
    }

    /**
     * The expressions of `plan` that parse a full-text query once per row: `to_tsquery` is only
     * stable, so outside an index condition (run once per scan) or an InitPlan (once per
     * execution) it is called again for every row it tests (~0.6 µs a match).
     */
    function perRowQueries(plan: PlanNode): string[] {
      const once = new Set(['Index Cond', 'Recheck Cond']);
      const outsideInitPlans = (node: PlanNode): PlanNode[] =>
        node['Parent Relationship'] === 'InitPlan'
          ? []
          : [node, ...(node.Plans ?? []).flatMap(outsideInitPlans)];
      return outsideInitPlans(plan).flatMap((node) =>
        Object.entries(node)
          .filter(([field]) => !once.has(field) && field !== 'Plans')
          .map(([field, value]) => `${node['Node Type']} ${field}: ${JSON.stringify(value)}`)
          .filter((expression) => expression.includes('to_tsquery')),
      );
    }

    for (const [shape, search] of Object.entries(SHAPES)) {
      it.skipIf(UNSELECTIVE.includes(shape))(shape, async () => {
        const walked = await walkChosen(search);
        const statements = searchStatements('postgres', search, walked).slice(
          0,
          walked === undefined ? 3 : undefined,
        );
        for (const [k, { text, params }] of statements.entries()) {
          const modes = CUSTOM_ONLY.includes(shape) ? ['force_custom_plan'] : PLAN_MODES;
          for (const [m, plan] of (await plans(text, params, modes)).entries()) {
            const context = `${modes[m]}, statement ${k}\n${JSON.stringify(plan, null, 1)}`;
            expect(seqScans(plan), context).toEqual([]);
            expect(perRowQueries(plan), context).toEqual([]);
          }
        }
      });
    }

    /**
     * A walk chosen by its counts (names dense enough to fill the page early) reads
     * `plugins_listed` in order, whatever the plan: the one-letter prefix too, whose ranked plan
     * rightly reads every plugin.
     */
    const WALKED = {
      'one-letter prefix': query('s'),
      'two-letter prefix': query('sl'),
      'a verb': query('sync'),
    };
    for (const [shape, search] of Object.entries(WALKED)) {
      it(`walk: ${shape}`, async () => {
        const visits = await walkChosen(search);
        expect(visits).toBeDefined();
        const walk = searchStatements('postgres', search, visits)[3]!;
        for (const plan of await plans(walk.text, walk.params, PLAN_MODES)) {
          expect(seqScans(plan), JSON.stringify(plan, null, 1)).toEqual([]);
          expect(JSON.stringify(plan)).toContain('"Index Name":"plugins_listed"');
          expect(perRowQueries(plan), JSON.stringify(plan, null, 1)).toEqual([]);
        }
      });
    }
  });
});
