import type { DeploymentStore, TriggerStore } from '@weft/core';
import { openStore, type OpenedStore } from './open.js';
import { openPostgresTestStore } from './test-stores.js';

/** Throwaway trigger and deployment stores for tests and benchmarks. */
export interface TestTriggerStores {
  triggers: TriggerStore;
  deployments: DeploymentStore;
  opened: OpenedStore;
  /** Closes the store and drops its data (the PostgreSQL schema). */
  dispose(): Promise<void>;
}

/**
 * Opens fresh trigger and deployment stores: SQLite in a directory (`:memory:` by default), or an
 * empty schema in the PostgreSQL database at `databaseUrl` ({@link takeTestSchema}), given back
 * by `dispose()`.
 */
export async function openTestTriggerStores(
  kind: 'sqlite' | 'postgres',
  location = ':memory:',
): Promise<TestTriggerStores> {
  if (kind === 'sqlite') {
    const opened = await openStore({ kind: 'sqlite', dataDir: location });
    return { ...pick(opened), dispose: () => opened.registry.close() };
  }
  const { opened, dispose } = await openPostgresTestStore(location, 8);
  return { ...pick(opened), dispose };
}

function pick(opened: OpenedStore) {
  return { triggers: opened.triggers, deployments: opened.deployments, opened };
}
