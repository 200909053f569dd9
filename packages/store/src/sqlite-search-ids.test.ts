import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { Database } from './database.js';
import { migrate } from './migrations.js';
import { openStore, type OpenedStore } from './open.js';
import { createTestPlugin } from './test-stores.js';

let opened: OpenedStore | undefined;
afterEach(async () => {
  await opened?.registry.close();
  opened = undefined;
});

/**
 * A data directory whose database was made by a weft that stopped at migration `target`, with
 * plugins listed as that weft listed them (name and full-text row as given, not folded).
 */
async function databaseAt(
  target: string,
  plugins: readonly { slug: string; name?: string; description?: string }[],
): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'weft-search-ids-'));
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: new BetterSqlite3(join(dataDir, 'weft.db')) }),
  });
  await migrate(db, 'sqlite', undefined, target);
  const rows = plugins.map((p) => ({
    slug: p.slug,
    name: p.name ?? p.slug,
    description: p.description ?? 'Sends messages',
  }));
  for (const { slug, name, description } of rows) {
    await sql`INSERT INTO plugins (slug, slug_key, owner, created_at, updated_at, downloads,
        latest_version, name, description, author, tags)
      VALUES (${slug}, ${slug}, 'acme', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 0,
        '1.0.0', ${name}, ${description}, 'acme', '[]')`.execute(db);
  }
  // In the other order: full-text rowids then differ from the plugins' rowids.
  for (const { slug, name, description } of [...rows].reverse()) {
    const id = target < '0005' ? null : sql`(SELECT search_id FROM plugins WHERE slug = ${slug})`;
    if (id) await sql`UPDATE plugins SET search_id = rowid WHERE slug = ${slug}`.execute(db);
    await sql`INSERT INTO plugin_search (rowid, slug, name, tags, description)
      VALUES (${id}, ${slug}, ${name}, '', ${description})`.execute(db);
  }
  await db.destroy();
  return dataDir;
}

/** A data directory whose database was made by a weft before `0005_search_ids`, with plugins. */
const databaseBeforeSearchIds = (slugs: readonly string[]) =>
  databaseAt(
    '0004_triggers',
    slugs.map((slug) => ({ slug })),
  );

const search = (words: string[]) => ({
  words,
  exact: words.join(' '),
  tag: undefined,
  limit: 20,
  offset: 0,
});

describe('SQLite full-text rows keyed by search id (0005_search_ids)', () => {
  it('an upgraded database finds its plugins, and new listings get the next id', async () => {
    const dataDir = await databaseBeforeSearchIds(['slack-notify', 'slack-relay', 'github']);
    opened = await openStore({ kind: 'sqlite', dataDir });
    const found = await opened.registry.search(search(['slack']));
    expect(found.total).toBe(2);
    expect(found.plugins.map((p) => p.slug)).toEqual(['slack-notify', 'slack-relay']);
    expect((await opened.registry.search(search(['sends']))).total).toBe(3);
    await createTestPlugin(opened.registry, 'slack-archive');
    expect((await opened.registry.search(search(['slack']))).plugins.map((p) => p.slug)).toEqual([
      'slack-archive',
      'slack-notify',
      'slack-relay',
    ]);
    expect((await opened.registry.search(search(['sends']))).total).toBe(4);
  });
});

describe('search words folded by core (0006_search_fold)', () => {
  it('an upgraded database finds accented names without accents and ranks exact names first', async () => {
    const dataDir = await databaseAt('0005_search_ids', [
      { slug: 'resume', name: 'Résumé Parser', description: 'Lit les CV ÉCRITS' },
      { slug: 'other', name: 'Other', description: 'Parses a résumé' },
    ]);
    opened = await openStore({ kind: 'sqlite', dataDir });
    const found = await opened.registry.search({
      words: ['resume', 'parser'],
      exact: 'resume parser',
      tag: undefined,
      limit: 20,
      offset: 0,
    });
    expect(found.plugins.map((p) => p.slug)).toEqual(['resume']);
    expect((await opened.registry.search(search(['ecrits']))).total).toBe(1);
    expect((await opened.registry.search(search(['resume']))).plugins.map((p) => p.slug)).toEqual([
      'resume',
      'other',
    ]);
  });
});

describe('search indexes (0021_search_indexes)', () => {
  it('an upgraded database keeps its full-text rows and finds them by prefix', async () => {
    const dataDir = await databaseAt('0019_resumed_from', [
      { slug: 'slack-notify', name: 'slack notify' },
      { slug: 'slack-relay', name: 'slack relay' },
      { slug: 'github', name: 'github' },
    ]);
    opened = await openStore({ kind: 'sqlite', dataDir });
    const found = await opened.registry.search(search(['s']));
    expect(found.plugins.map((p) => p.slug)).toEqual(['slack-notify', 'slack-relay', 'github']);
    expect((await opened.registry.search(search(['sl']))).total).toBe(2);
    const browse = await opened.registry.search({ ...search([]), limit: 2 });
    expect(browse).toMatchObject({ total: 3 });
    expect(browse.plugins.map((p) => p.slug)).toEqual(['github', 'slack-notify']);
    const file = new BetterSqlite3(join(dataDir, 'weft.db'), { readonly: true });
    const names = file
      .prepare(`SELECT name, sql FROM sqlite_master WHERE tbl_name IN ('plugins', 'plugin_search')`)
      .all() as { name: string; sql: string | null }[];
    file.close();
    expect(names.map((n) => n.name)).toEqual(
      expect.arrayContaining(['plugins_listed', 'plugins_listed_kind', 'plugins_search_rank']),
    );
    expect(names.find((n) => n.name === 'plugin_search')?.sql).toContain("prefix = '1 2 3'");
  });
});
