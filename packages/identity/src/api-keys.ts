import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  grantList,
  keyPrincipal,
  UnauthorizedError,
  type ApiKeyRecord,
  type Principal,
  type RegistryStore,
} from '@weft/core';

/** Where API keys are kept: the registry store's `api_keys`. */
export type ApiKeyStore = Pick<RegistryStore, 'insertApiKey' | 'findApiKey' | 'revokeApiKey'>;

/** Prefix of every weft API key. */
export const KEY_PREFIX = 'weft_';

/** `weft_<12 hex public id>_<43 base64url secret>`. */
const KEY_SHAPE = /^weft_([a-f0-9]{12})_([A-Za-z0-9_-]{43})$/;

/** Hex SHA-256 of a key: all the store keeps of it. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** What a new key grants. */
export interface ApiKeyInit {
  name: string;
  owner: string;
  admin: boolean;
  roles?: readonly string[];
  permissions?: readonly string[];
  /** ISO time of creation. */
  at: string;
}

/** A new key and the record to store for it (the record holds only its hash). */
export function generateApiKey(init: ApiKeyInit): { key: string; record: ApiKeyRecord } {
  const id = randomBytes(6).toString('hex');
  const key = `${KEY_PREFIX}${id}_${randomBytes(32).toString('base64url')}`;
  return {
    key,
    record: {
      id,
      name: init.name,
      owner: init.owner,
      hash: hashApiKey(key),
      admin: init.admin,
      roles: [...grantList(init.roles ?? [])],
      permissions: [...grantList(init.permissions ?? [])],
      created_at: init.at,
    },
  };
}

/** True when a bearer token claims to be a weft API key (by its prefix). */
export function isApiKeyToken(token: string): boolean {
  return token.startsWith(KEY_PREFIX);
}

const NO_KEY_HASH = createHash('sha256').update('no key').digest();

/** Stored hashes decoded once per record (the store keeps the records it found). */
const decodedHashes = new WeakMap<ApiKeyRecord, Buffer>();

function expectedHash(record: ApiKeyRecord): Buffer {
  let hash = decodedHashes.get(record);
  if (hash === undefined) {
    hash = Buffer.from(record.hash, 'hex');
    decodedHashes.set(record, hash);
  }
  return hash;
}

/**
 * The stored record of an API key: its public id selects the record, then the SHA-256 of the
 * whole key is compared in constant time. Throws `UNAUTHORIZED` (`reason: invalid`, or
 * `revoked` for the right key of a revoked record).
 */
export async function verifyApiKey(store: ApiKeyStore, key: string): Promise<ApiKeyRecord> {
  const shape = KEY_SHAPE.exec(key);
  const record = shape ? await store.findApiKey(shape[1]!) : undefined;
  const expected = record ? expectedHash(record) : NO_KEY_HASH;
  const actual = createHash('sha256').update(key).digest();
  if (!record || expected.length !== actual.length || !timingSafeEqual(expected, actual)) {
    throw new UnauthorizedError('the API key is not valid', { reason: 'invalid' });
  }
  if (record.revoked_at !== undefined) {
    throw new UnauthorizedError(`the API key ${record.id} was revoked at ${record.revoked_at}`, {
      reason: 'revoked',
    });
  }
  return record;
}

/** The principal of a stored key (before the access policy adds permissions to its roles). */
export function apiKeyPrincipal(record: ApiKeyRecord): Principal {
  return keyPrincipal({
    keyId: record.id,
    owner: record.owner,
    name: record.name,
    admin: record.admin,
    roles: record.roles,
    permissions: record.permissions,
  });
}
