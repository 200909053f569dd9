import { resolve } from 'node:path';
import type { CreatedKey, CreateKeyRequest, RevokedKey } from '@weft/core';

/** Where the local store is: the data directory's SQLite file, or a PostgreSQL database. */
export interface LocalStore {
  dataDir: string;
  databaseUrl?: string;
}

/**
 * Opens the local store's registry (file access is admin). The store and the key functions are
 * imported here, when a key is made, so that no other command loads a database driver.
 */
async function withRegistry<T>(
  where: LocalStore,
  use: (
    registry: Awaited<ReturnType<typeof import('@weft/store').openStore>>['registry'],
    identity: typeof import('@weft/identity'),
  ) => Promise<T>,
): Promise<T> {
  const [{ openStore }, identity] = await Promise.all([
    import('@weft/store'),
    import('@weft/identity'),
  ]);
  const opened = await openStore(
    where.databaseUrl
      ? { kind: 'postgres', url: where.databaseUrl }
      : { kind: 'sqlite', dataDir: resolve(where.dataDir) },
  );
  try {
    return await use(opened.registry, identity);
  } finally {
    await opened.registry.close();
  }
}

/** Creates an API key directly in the local store. */
export function createLocalKey(where: LocalStore, request: CreateKeyRequest): Promise<CreatedKey> {
  return withRegistry(where, (registry, { createApiKey }) =>
    createApiKey(registry, request, new Date().toISOString()),
  );
}

/** Revokes an API key directly in the local store. */
export function revokeLocalKey(where: LocalStore, id: string): Promise<RevokedKey> {
  return withRegistry(where, (registry, { revokeApiKey }) =>
    revokeApiKey(registry, id, new Date().toISOString()),
  );
}
