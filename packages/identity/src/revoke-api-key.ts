import { NotFoundError, ValidationError, type RevokedKey } from '@weft/core';
import type { ApiKeyStore } from './api-keys.js';

/** A key's public id: 12 hex digits (the part between `weft_` and the secret). */
const KEY_ID = /^[a-f0-9]{12}$/;

/**
 * Revokes the key of public id `id` at `at` (revoking it again keeps the first time). Every
 * server sharing the store refuses it within `API_KEY_CACHE_MS`. Throws `VALIDATION` for an
 * id of the wrong shape, `NOT_FOUND` naming an unknown one.
 */
export async function revokeApiKey(
  store: ApiKeyStore,
  id: string,
  at: string,
): Promise<RevokedKey> {
  if (!KEY_ID.test(id)) {
    throw new ValidationError(
      `"${id.slice(0, 40)}" is not an API key id: 12 lowercase hex digits, the part after weft_`,
      { field: 'id', constraint: 'pattern' },
    );
  }
  const record = await store.revokeApiKey(id, at);
  if (!record) throw new NotFoundError(`no API key has the id ${id}`, { id });
  return {
    id: record.id,
    name: record.name,
    owner: record.owner,
    created_at: record.created_at,
    revoked_at: record.revoked_at ?? at,
  };
}
