import type { ExecutionsStore, RegistryStore } from '@weft/core';
import { MemoryExecutionsStore } from './memory/memory-executions-store.js';
import { openStore } from './open.js';
import { openPostgresTestStore } from './test-stores.js';

/** A throwaway executions store for tests. */
export interface TestExecutions {
  executions: ExecutionsStore;
  /** Closes the store and drops its data (the PostgreSQL schema). */
  dispose(): Promise<void>;
}

/** A throwaway executions store on a database, with the registry store on the same data. */
export interface TestExecutionsStore extends TestExecutions {
  registry: RegistryStore;
}

/**
 * Opens a fresh executions store: in process memory (no database, no registry store), in-memory
 * SQLite, or an empty schema in the PostgreSQL database at `databaseUrl` ({@link takeTestSchema}),
 * given back by `dispose()`.
 */
export function openTestExecutionsStore(kind: 'memory'): Promise<TestExecutions>;
export function openTestExecutionsStore(
  kind: 'sqlite' | 'postgres',
  databaseUrl?: string,
): Promise<TestExecutionsStore>;
export function openTestExecutionsStore(
  kind: 'memory' | 'sqlite' | 'postgres',
  databaseUrl?: string,
): Promise<TestExecutions>;
export async function openTestExecutionsStore(
  kind: 'memory' | 'sqlite' | 'postgres',
  databaseUrl?: string,
): Promise<TestExecutions | TestExecutionsStore> {
  if (kind === 'memory')
    return { executions: new MemoryExecutionsStore(), dispose: async () => {} };
  if (kind === 'sqlite') {
    const opened = await openStore({ kind: 'sqlite', dataDir: ':memory:' });
    return {
      executions: opened.executions,
      registry: opened.registry,
      dispose: () => opened.registry.close(),
    };
  }
  if (!databaseUrl) throw new Error('a PostgreSQL test store needs a database URL');
  const { opened, dispose } = await openPostgresTestStore(databaseUrl);
  return { executions: opened.executions, registry: opened.registry, dispose };
}
