import type { CreatedKey, CreateKeyRequest, RevokedKey } from '@weft/core';
import { createApiKey, revokeApiKey } from '@weft/identity';
import { openStore, type OwnerMove } from '@weft/store';
import { compileServerOptions, type ServerOptions } from './config.js';
import { storeOptionsOf } from './build.js';

/**
 * Creates an API key directly in the local store (file access is admin): the data directory's
 * SQLite file, or the PostgreSQL database when a URL is given.
 */
export async function createLocalKey(
  options: ServerOptions,
  request: CreateKeyRequest,
): Promise<CreatedKey> {
  const opened = await openStore(storeOptionsOf(compileServerOptions(options)));
  try {
    return await createApiKey(opened.registry, request, new Date().toISOString());
  } finally {
    await opened.registry.close();
  }
}

/** Revokes an API key directly in the local store (see {@link createLocalKey}). */
export async function revokeLocalKey(options: ServerOptions, id: string): Promise<RevokedKey> {
  const opened = await openStore(storeOptionsOf(compileServerOptions(options)));
  try {
    return await revokeApiKey(opened.registry, id, new Date().toISOString());
  } finally {
    await opened.registry.close();
  }
}

/**
 * Moves everything of owner `from` to owner `to` directly in the local store, in one
 * transaction (`weft admin move-owner`; see `moveOwner` of @weft/store).
 */
export async function moveLocalOwner(
  options: ServerOptions,
  from: string,
  to: string,
): Promise<OwnerMove> {
  const opened = await openStore(storeOptionsOf(compileServerOptions(options)));
  try {
    return await opened.moveOwner(from, to);
  } finally {
    await opened.executions.close();
    await opened.registry.close();
  }
}
