import { describe, expect, it } from 'vitest';
import { UnauthorizedError, WeftError, type ApiKeyRecord, type Principal } from '@weft/core';
import { parseAccessPolicy } from './access-file.js';
import type { ApiKeyStore } from './api-keys.js';
import { Authenticator } from './authenticator.js';
import { createApiKey } from './create-api-key.js';
import { revokeApiKey } from './revoke-api-key.js';

/** API keys in a map: the port is two methods, the SQL stores run the contract tests. */
class KeyMap implements ApiKeyStore {
  readonly records = new Map<string, ApiKeyRecord>();
  async insertApiKey(record: ApiKeyRecord): Promise<void> {
    this.records.set(record.id, record);
  }
  async findApiKey(id: string): Promise<ApiKeyRecord | undefined> {
    return this.records.get(id);
  }
  async revokeApiKey(id: string, at: string): Promise<ApiKeyRecord | undefined> {
    const record = this.records.get(id);
    if (record && record.revoked_at === undefined)
      this.records.set(id, { ...record, revoked_at: at });
    return this.records.get(id);
  }
}

const AT = '2026-01-01T00:00:00.000Z';

async function reasonOf(run: Promise<unknown>): Promise<string> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof WeftError)) throw new Error('expected a refusal');
  return `${error.code}:${String((error.details as { reason?: string }).reason)}`;
}

describe('Authenticator: API keys', () => {
  it('resolves a key to its principal with its roles and permissions', async () => {
    const keys = new KeyMap();
    const created = await createApiKey(
      keys,
      { name: 'svc', roles: ['ops'], permissions: ['payments:write'] },
      AT,
    );
    const principal = await new Authenticator({ keys }).authenticate(`Bearer ${created.key}`);
    expect(principal).toMatchObject({
      kind: 'api_key',
      owner: 'svc',
      name: 'svc',
      admin: false,
      roles: ['ops'],
      permissions: ['payments:write'],
    });
    expect(principal.subject).toBe(principal.keyId);
  });

  it('refuses unknown, altered and non-weft credentials', async () => {
    const keys = new KeyMap();
    const { key } = await createApiKey(keys, { name: 'svc' }, AT);
    const auth = new Authenticator({ keys });
    expect(await reasonOf(auth.authenticate(`Bearer ${key.slice(0, -1)}x`))).toBe(
      'UNAUTHORIZED:invalid',
    );
    expect(await reasonOf(auth.authenticate('Bearer weft_000000000000_' + 'a'.repeat(43)))).toBe(
      'UNAUTHORIZED:invalid',
    );
    expect(await reasonOf(auth.authenticate('Bearer hello'))).toBe('UNAUTHORIZED:invalid');
    expect(
      await reasonOf(auth.authenticate('Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1In0.c2ln')),
    ).toBe('UNAUTHORIZED:invalid');
    expect(await reasonOf(auth.authenticate(undefined))).toBe('UNAUTHORIZED:missing');
  });

  it('refuses a revoked key (revoked only with the right id; revoking again keeps the first time)', async () => {
    const keys = new KeyMap();
    const { key } = await createApiKey(keys, { name: 'svc' }, AT);
    const id = key.slice(5, 17);
    const auth = new Authenticator({ keys });
    await auth.authenticate(`Bearer ${key}`);
    expect(await revokeApiKey(keys, id, '2026-01-02T00:00:00.000Z')).toMatchObject({
      id,
      name: 'svc',
      revoked_at: '2026-01-02T00:00:00.000Z',
    });
    expect(await reasonOf(auth.authenticate(`Bearer ${key}`))).toBe('UNAUTHORIZED:revoked');
    expect(await reasonOf(auth.authenticate(`Bearer ${key.slice(0, -1)}x`))).toBe(
      'UNAUTHORIZED:invalid',
    );
    expect((await revokeApiKey(keys, id, '2026-01-03T00:00:00.000Z')).revoked_at).toBe(
      '2026-01-02T00:00:00.000Z',
    );
    expect(await reasonOf(revokeApiKey(keys, 'abcdefabcdef', AT))).toBe('NOT_FOUND:undefined');
    expect(await reasonOf(revokeApiKey(keys, key, AT))).toBe('VALIDATION:undefined');
  });

  it('adds the permissions the access policy grants to the roles, and follows policy changes', async () => {
    const keys = new KeyMap();
    const { key } = await createApiKey(
      keys,
      { name: 'svc', roles: ['finance'], permissions: ['a:b'] },
      AT,
    );
    const auth = new Authenticator({
      keys,
      accessPolicy: parseAccessPolicy('roles: {finance: {permissions: [payments:approve]}}'),
    });
    expect((await auth.authenticate(`Bearer ${key}`)).permissions).toEqual([
      'a:b',
      'payments:approve',
    ]);
    auth.setAccessPolicy(parseAccessPolicy('roles: {finance: {permissions: [reports:read]}}'));
    expect((await auth.authenticate(`Bearer ${key}`)).permissions).toEqual(['a:b', 'reports:read']);
  });

  it('refuses a key request with a bad role or permission, naming it', async () => {
    const keys = new KeyMap();
    await expect(
      createApiKey(keys, { name: 'svc', permissions: ['payments'] }, AT),
    ).rejects.toThrow('permissions[0] "payments" is not a permission');
    await expect(
      createApiKey(keys, { name: 'svc', roles: ['ok', 'no spaces'] }, AT),
    ).rejects.toThrow('roles[1] "no spaces" is not a role name');
    expect(keys.records.size).toBe(0);
  });
});

describe('Authenticator: tokens', () => {
  const user: Principal = {
    kind: 'oidc',
    subject: 'u1',
    owner: 'acme',
    keyId: 'oidc:u1',
    name: 'ada',
    admin: false,
    roles: ['finance'],
    permissions: [],
  };
  const tokens = {
    verify: async (token: string) => {
      if (token !== 'eyJa.eyJb.c') throw new UnauthorizedError('no', { reason: 'bad_signature' });
      return user;
    },
  };

  it('hands JWTs to the token verifier and expands their roles', async () => {
    const auth = new Authenticator({
      keys: new KeyMap(),
      tokens,
      accessPolicy: parseAccessPolicy('roles: {finance: {permissions: [payments:approve]}}'),
    });
    expect(await auth.authenticate('Bearer eyJa.eyJb.c')).toEqual({
      ...user,
      permissions: ['payments:approve'],
    });
    expect(await reasonOf(auth.authenticate('Bearer eyJa.eyJb.d'))).toBe(
      'UNAUTHORIZED:bad_signature',
    );
  });
});
