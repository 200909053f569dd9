import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { PluginDefinition, PluginKind, RegistryStore } from '@weft/core';
import { openStore } from './open.js';

/** A throwaway store for tests, and how to get rid of it. */
export interface TestStore {
  store: RegistryStore;
  /** PostgreSQL: the schema holding its data. */
  schema?: string;
  /** Closes the store and drops its data (the PostgreSQL schema). */
  dispose(): Promise<void>;
}

/**
 * Opens a fresh store for one test run: in-memory SQLite, or a new schema `weft_test_<random>`
 * in the PostgreSQL database at `databaseUrl`, dropped by `dispose()`.
 */
export async function openTestStore(
  kind: 'sqlite' | 'postgres',
  databaseUrl?: string,
): Promise<TestStore> {
  if (kind === 'sqlite') {
    const { registry } = await openStore({ kind: 'sqlite', dataDir: ':memory:' });
    return { store: registry, dispose: () => registry.close() };
  }
  if (!databaseUrl) throw new Error('a PostgreSQL test store needs a database URL');
  const schema = testSchemaName();
  const { registry } = await openStore({ kind: 'postgres', url: databaseUrl, schema, poolSize: 4 });
  return {
    store: registry,
    schema,
    dispose: async () => {
      await registry.close();
      await dropTestSchema(databaseUrl, schema);
    },
  };
}

/** A new schema name for one test's data, `weft_test_<random>` (drop it with {@link dropTestSchema}). */
export function testSchemaName(): string {
  return `weft_test_${randomBytes(6).toString('hex')}`;
}

/** Drops a PostgreSQL schema (and everything in it) over a connection of its own. */
export async function dropTestSchema(databaseUrl: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

/** Publishes `slug` at 1.0.0 through `store`, as the registry does (for store tests). */
export async function createTestPlugin(
  store: RegistryStore,
  slug: string,
  kind: PluginKind = 'plugin',
): Promise<void> {
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
  const slugKey = slug.replace(/-/g, '');
  await store.modifyPlugin(slug, slugKey, () => ({
    change: {
      kind: 'create',
      owner: 'acme',
      slug_key: slugKey,
      at,
      version: {
        kind,
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
