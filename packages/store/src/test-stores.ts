import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { RegistryStore } from '@weft/core';
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
  const schema = `weft_test_${randomBytes(6).toString('hex')}`;
  const { registry } = await openStore({ kind: 'postgres', url: databaseUrl, schema, poolSize: 4 });
  return {
    store: registry,
    schema,
    dispose: async () => {
      await registry.close();
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}
