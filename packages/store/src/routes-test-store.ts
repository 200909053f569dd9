import type { RoutesStore } from '@weft/core';
import { openStore } from './open.js';
import { takeTestSchema, type TestSchema } from './test-stores.js';

/** A throwaway routing table for tests, and how to get rid of it. */
export interface TestRoutesStore {
  routes: RoutesStore;
  /** A second store on the same data: another server replica. */
  replica(): Promise<RoutesStore>;
  /** Closes every store and drops the data (the PostgreSQL schema). */
  dispose(): Promise<void>;
}

/**
 * Opens a fresh routing table: a temporary SQLite file (so that a second connection sees the
 * same data), or an empty schema in the PostgreSQL database at `databaseUrl` ({@link takeTestSchema}).
 */
export async function openTestRoutesStore(
  kind: 'sqlite' | 'postgres',
  databaseUrl?: string,
  dataDir?: string,
): Promise<TestRoutesStore> {
  const closers: (() => Promise<void>)[] = [];
  if (kind === 'postgres' && !databaseUrl) throw new Error('PostgreSQL needs a database URL');
  const schema: TestSchema | undefined =
    kind === 'postgres' ? await takeTestSchema(databaseUrl!) : undefined;
  const open = async (): Promise<RoutesStore> => {
    const opened =
      kind === 'sqlite'
        ? await openStore({ kind: 'sqlite', dataDir: dataDir ?? ':memory:' })
        : await openStore({
            kind: 'postgres',
            url: databaseUrl!,
            schema: schema!.name,
            poolSize: 4,
          });
    closers.push(() => opened.registry.close());
    return opened.routes;
  };
  const routes = await open();
  return {
    routes,
    replica: open,
    dispose: async () => {
      for (const close of closers) await close();
      await schema?.release();
    },
  };
}
