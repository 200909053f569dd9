import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { PluginDefinition, RegistryStore } from '@weft/core';
import type { Database } from './database.js';
import { migrate } from './migrations.js';
import { openStore, type OpenedStore } from './open.js';

let opened: OpenedStore | undefined;
afterEach(async () => {
  await opened?.registry.close();
  opened = undefined;
});

/** A data directory whose database was made by a weft before `0005_search_ids`, with plugins. */
async function databaseBeforeSearchIds(slugs: readonly string[]): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'weft-search-ids-'));
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: new BetterSqlite3(join(dataDir, 'weft.db')) }),
  });
  await migrate(db, 'sqlite', undefined, '0004_triggers');
  for (const slug of slugs) {
    await sql`INSERT INTO plugins (slug, slug_key, owner, created_at, updated_at, downloads,
        latest_version, name, description, author, tags)
      VALUES (${slug}, ${slug}, 'acme', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 0,
        '1.0.0', ${slug}, 'Sends messages', 'acme', '[]')`.execute(db);
  }
  // In the other order: full-text rowids then differ from the plugins' rowids.
  for (const slug of [...slugs].reverse()) {
    await sql`INSERT INTO plugin_search (slug, name, tags, description)
      VALUES (${slug}, ${slug}, '', 'Sends messages')`.execute(db);
  }
  await db.destroy();
  return dataDir;
}

const search = (words: string[]) => ({
  words,
  exact: words.join(' '),
  tag: undefined,
  limit: 20,
  offset: 0,
});

/** Publishes a new plugin through the store, as the registry does. */
async function create(store: RegistryStore, slug: string): Promise<void> {
  const definition = {
    slug,
    version: '1.0.0',
    name: slug,
    description: 'Sends messages',
    author: 'acme',
    tags: [],
    actions: [{ name: 'run', description: 'Runs' }],
  } as unknown as PluginDefinition;
  const at = '2026-01-02T00:00:00Z';
  await store.modifyPlugin(slug, slug.replace(/-/g, ''), () => ({
    change: {
      kind: 'create',
      owner: 'acme',
      slug_key: slug.replace(/-/g, ''),
      at,
      version: {
        version: '1.0.0',
        published_at: at,
        checksum: 'sha256:x',
        content_type: 'application/json',
        body: new TextEncoder().encode(JSON.stringify(definition)),
        definition,
        signature_key_id: null,
      },
    },
    result: undefined,
  }));
}

describe('SQLite full-text rows keyed by search id (0005_search_ids)', () => {
  it('an upgraded database finds its plugins, and new listings get the next id', async () => {
    const dataDir = await databaseBeforeSearchIds(['slack-notify', 'slack-relay', 'github']);
    opened = await openStore({ kind: 'sqlite', dataDir });
    const found = await opened.registry.search(search(['slack']));
    expect(found.total).toBe(2);
    expect(found.plugins.map((p) => p.slug)).toEqual(['slack-notify', 'slack-relay']);
    expect((await opened.registry.search(search(['sends']))).total).toBe(3);
    await create(opened.registry, 'slack-archive');
    expect((await opened.registry.search(search(['slack']))).plugins.map((p) => p.slug)).toEqual([
      'slack-archive',
      'slack-notify',
      'slack-relay',
    ]);
    expect((await opened.registry.search(search(['sends']))).total).toBe(4);
  });
});
