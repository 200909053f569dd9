import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  UnauthorizedError,
  type ApiKeyRecord,
  type Principal,
  type RegistryStore,
} from '@weft/core';

/** Prefix of every weft API key. */
export const KEY_PREFIX = 'weft_';
const KEY_SHAPE = /^weft_([a-f0-9]{12})_([A-Za-z0-9_-]{43})$/;

/** Hex SHA-256 of a key. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** A new key and the record to store for it (the record holds only its hash). */
export function generateApiKey(
  name: string,
  owner: string,
  admin: boolean,
  at: string,
): { key: string; record: ApiKeyRecord } {
  const id = randomBytes(6).toString('hex');
  const key = `${KEY_PREFIX}${id}_${randomBytes(32).toString('base64url')}`;
  return { key, record: { id, name, owner, hash: hashKey(key), admin, created_at: at } };
}

/**
 * Resolves an `Authorization` header to its principal. The key's public id selects the stored
 * record; the SHA-256 of the key is then compared in constant time.
 */
export async function authenticate(
  store: RegistryStore,
  header: string | undefined,
): Promise<Principal> {
  if (header === undefined || header.trim() === '') {
    throw new UnauthorizedError(
      'this needs an API key: send Authorization: Bearer <key> (create one with weft auth create-key)',
      {
        reason: 'missing',
      },
    );
  }
  const match = /^Bearer[ \t]+(\S*)\s*$/i.exec(header);
  const key = match?.[1] ?? '';
  if (key === '') {
    throw new UnauthorizedError(
      'the Authorization header must be "Bearer <key>" with a non-empty key',
      {
        reason: 'malformed',
      },
    );
  }
  const shape = KEY_SHAPE.exec(key);
  const record = shape ? await store.findApiKey(shape[1]!) : undefined;
  const expected = Buffer.from(record?.hash ?? hashKey('no key'), 'hex');
  const actual = Buffer.from(hashKey(key), 'hex');
  if (!record || !timingSafeEqual(expected, actual)) {
    throw new UnauthorizedError('the API key is not valid', { reason: 'invalid' });
  }
  return { keyId: record.id, name: record.name, owner: record.owner, admin: record.admin };
}
