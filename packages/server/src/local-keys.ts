import type { CreatedKey, CreateKeyRequest } from '@weft/core';
import { createApiKey } from '@weft/identity';
import { openStore } from '@weft/store';
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
