import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WeftError } from '@weft/core';
import { TestIdentityProvider, unsignedToken } from '../testing/index.js';
import { compileOidcOptions, type OidcOptions } from './options.js';
import { OidcVerifier } from './verifier.js';

const idp = new TestIdentityProvider();
beforeAll(() => idp.start());
afterAll(() => idp.stop());
beforeEach(() => {
  idp.mode = 'up';
  idp.jwksOverride = undefined;
  idp.advertisedIssuer = undefined;
});

function verifier(options: Partial<OidcOptions> = {}): OidcVerifier {
  return new OidcVerifier(
    compileOidcOptions({ issuer: idp.url, audience: 'weft', cooldownMs: 0, ...options }),
  );
}

/** The wire error a verification failed with. */
async function failure(verifying: Promise<unknown>): Promise<{ code: string; reason: unknown }> {
  const error = await verifying.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof WeftError)) throw new Error(`expected a WeftError, got ${String(error)}`);
  return { code: error.code, reason: (error.details as { reason?: unknown }).reason };
}

describe('OidcVerifier: accepted tokens', () => {
  it('finds the keys by discovery and answers the principal of a token', async () => {
    const principal = await verifier().verify(
      await idp.sign({ roles: ['finance', 'ops'], permissions: ['payments:approve'] }),
    );
    expect(principal).toEqual({
      kind: 'oidc',
      subject: 'user-1',
      owner: 'oidc-users',
      keyId: 'oidc:user-1',
      name: 'user-1',
      admin: false,
      roles: ['finance', 'ops'],
      permissions: ['payments:approve'],
    });
  });

  it('reads roles at a dotted path (Keycloak realm_access.roles) and permissions from scope', async () => {
    const token = await idp.sign({
      realm_access: { roles: ['finance'] },
      scope: 'openid profile payments:approve reports:read',
      preferred_username: 'ada',
    });
    const principal = await verifier({ rolesClaim: 'realm_access.roles' }).verify(token);
    expect(principal.roles).toEqual(['finance']);
    expect(principal.permissions).toEqual(['payments:approve', 'reports:read']);
    expect(principal.name).toBe('ada');
  });

  it('reads a namespaced claim whose name holds dots (Auth0)', async () => {
    const token = await idp.sign({ 'https://weft.example.com/roles': ['admins'] });
    const principal = await verifier({ rolesClaim: 'https://weft.example.com/roles' }).verify(
      token,
    );
    expect(principal.roles).toEqual(['admins']);
  });

  it('accepts an RFC 9068 access token (typ at+jwt) and ES256 and EdDSA keys', async () => {
    await idp.addKey('ec1', 'ES256');
    await idp.addKey('ed1', 'EdDSA');
    const v = verifier();
    for (const kid of ['ec1', 'ed1']) {
      const token = await idp.sign({}, { kid, header: { typ: 'at+jwt' } });
      expect((await v.verify(token)).subject).toBe('user-1');
    }
  });

  it('an absent roles claim means no roles', async () => {
    expect((await verifier().verify(await idp.sign())).roles).toEqual([]);
  });
});

describe('OidcVerifier: refused tokens (401)', () => {
  const cases: [string, () => Promise<string>, string][] = [
    ['expired', () => idp.sign({ exp: Math.floor(Date.now() / 1000) - 120 }), 'expired'],
    [
      'not yet valid',
      () => idp.sign({ nbf: Math.floor(Date.now() / 1000) + 600 }),
      'not_yet_valid',
    ],
    ['of another issuer', () => idp.sign({ iss: 'https://evil.example.com' }), 'wrong_issuer'],
    ['for another audience', () => idp.sign({ aud: 'someone-else' }), 'wrong_audience'],
    ['without exp', () => idp.sign({}, { noExpiry: true }), 'missing_claim'],
    ['without sub', () => idp.sign({ sub: undefined }), 'missing_claim'],
    [
      'with alg none',
      async () => unsignedToken({ iss: idp.url, aud: 'weft', sub: 'u', exp: 9e9 }),
      'alg_not_allowed',
    ],
    ['of an unknown kid', () => idp.sign({}, { header: { kid: 'nobody' } }), 'unknown_key'],
    ['of a kid that is no string', () => idp.sign({}, { header: { kid: 42 } }), 'bad_kid'],
    ['of an over-long kid', () => idp.sign({}, { header: { kid: 'k'.repeat(300) } }), 'bad_kid'],
    [
      'of a path-like kid',
      () => idp.sign({}, { header: { kid: '../../etc/passwd' } }),
      'unknown_key',
    ],
    ['of the wrong typ', () => idp.sign({}, { header: { typ: 'logout+jwt' } }), 'bad_type'],
    ['with roles that are a string', () => idp.sign({ roles: 'admin' }), 'bad_claim'],
    ['with roles holding a number', () => idp.sign({ roles: ['ops', 7] }), 'bad_claim'],
    ['with an object as permissions', () => idp.sign({ permissions: { a: 1 } }), 'bad_claim'],
    ['with an empty sub', () => idp.sign({ sub: '' }), 'bad_claim'],
  ];
  for (const [name, make, reason] of cases) {
    it(`refuses a token ${name} (${reason})`, async () => {
      expect(await failure(verifier().verify(await make()))).toEqual({
        code: 'UNAUTHORIZED',
        reason,
      });
    });
  }

  it('refuses forged and truncated tokens', async () => {
    const token = await idp.sign({ roles: ['user'] });
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const forgedPayload = Buffer.from(
      JSON.stringify({
        ...JSON.parse(Buffer.from(payload, 'base64url').toString()),
        roles: ['admin'],
      }),
    ).toString('base64url');
    const v = verifier();
    expect(await failure(v.verify(`${header}.${forgedPayload}.${signature}`))).toEqual({
      code: 'UNAUTHORIZED',
      reason: 'bad_signature',
    });
    expect(await failure(v.verify(`${header}.${payload}`))).toEqual({
      code: 'UNAUTHORIZED',
      reason: 'malformed',
    });
    expect(await failure(v.verify(token.slice(0, -10)))).toEqual({
      code: 'UNAUTHORIZED',
      reason: 'bad_signature',
    });
    expect(await failure(v.verify('eyJ.eyJ.x'))).toEqual({
      code: 'UNAUTHORIZED',
      reason: 'malformed',
    });
  });

  it('refuses an HS256 token signed with the public key as secret (algorithm confusion)', async () => {
    const { SignJWT } = await import('jose');
    const token = await new SignJWT({ sub: 'u', aud: 'weft', iss: idp.url, exp: 9e9 })
      .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
      .sign(new TextEncoder().encode('a public key used as an HMAC secret'));
    expect(await failure(verifier().verify(token))).toEqual({
      code: 'UNAUTHORIZED',
      reason: 'alg_not_allowed',
    });
  });
});

describe('OidcVerifier: key rotation', () => {
  it('accepts a token of a new kid after fetching the key set again', async () => {
    const v = verifier();
    await v.verify(await idp.sign());
    const before = idp.jwksRequests;
    await idp.addKey('k-new');
    expect((await v.verify(await idp.sign({}, { kid: 'k-new' }))).subject).toBe('user-1');
    expect(idp.jwksRequests).toBe(before + 1);
  });

  it('refuses a token of a removed key once the key set is fetched again, cached or not', async () => {
    await idp.addKey('k-old');
    const v = verifier();
    const token = await idp.sign({}, { kid: 'k-old' });
    expect((await v.verify(token)).subject).toBe('user-1');
    expect((await v.verify(token)).subject).toBe('user-1');
    idp.removeKey('k-old');
    // Another unknown kid makes the verifier fetch the set again (cooldown 0 here).
    expect((await failure(v.verify(await idp.sign({}, { header: { kid: 'x' } })))).reason).toBe(
      'unknown_key',
    );
    expect(await failure(v.verify(token))).toEqual({ code: 'UNAUTHORIZED', reason: 'unknown_key' });
  });

  it('fetches the key set at most once per cooldown for unknown kids', async () => {
    const v = verifier({ cooldownMs: 60_000 });
    await v.verify(await idp.sign());
    const before = idp.jwksRequests;
    for (let i = 0; i < 5; i++) {
      await failure(v.verify(await idp.sign({}, { header: { kid: `guess-${i}` } })));
    }
    expect(idp.jwksRequests).toBe(before);
  });
});

describe('OidcVerifier: an unreachable provider fails closed (503)', () => {
  it('answers UNAVAILABLE while discovery fails, then works when the provider is back', async () => {
    const v = verifier({ discoveryRetryMs: 0 });
    const token = await idp.sign();
    idp.mode = 'down';
    expect(await failure(v.verify(token))).toEqual({ code: 'UNAVAILABLE', reason: undefined });
    idp.mode = 'up';
    expect((await v.verify(token)).subject).toBe('user-1');
  });

  it('answers UNAVAILABLE when the JWKS endpoint is down and the keys are too old', async () => {
    const v = verifier({ cacheMaxAgeMs: 0 });
    const token = await idp.sign();
    expect((await v.verify(token)).subject).toBe('user-1');
    idp.mode = 'down';
    expect((await failure(v.verify(token))).code).toBe('UNAVAILABLE');
    expect((await failure(v.verify(await idp.sign({ sub: 'user-2' })))).code).toBe('UNAVAILABLE');
  });

  it('answers UNAVAILABLE when the JWKS endpoint times out or serves garbage', async () => {
    const token = await idp.sign();
    idp.mode = 'hang';
    expect(
      (await failure(verifier({ jwksUrl: `${idp.url}/jwks`, timeoutMs: 200 }).verify(token))).code,
    ).toBe('UNAVAILABLE');
    idp.mode = 'up';
    for (const body of [
      'not json',
      '{"keys": 5}',
      JSON.stringify({ keys: ['x'.repeat(2_000_000)] }),
    ]) {
      idp.jwksOverride = body;
      expect((await failure(verifier({ jwksUrl: `${idp.url}/jwks` }).verify(token))).code).toBe(
        'UNAVAILABLE',
      );
    }
  });

  it('answers UNAVAILABLE when the discovery document names another issuer', async () => {
    idp.advertisedIssuer = 'https://other.example.com';
    expect((await failure(verifier().verify(await idp.sign()))).code).toBe('UNAVAILABLE');
  });
});

describe('OidcVerifier: the workspace (owner) of a token', () => {
  it('is the owner claim, at a dotted path or a name holding dots; the person stays the subject', async () => {
    const v = verifier({ ownerClaim: 'org.name' });
    const ada = await v.verify(await idp.sign({ sub: 'ada', org: { name: 'acme' } }));
    const bob = await v.verify(await idp.sign({ sub: 'bob', org: { name: 'acme' } }));
    expect([ada.owner, ada.subject, ada.keyId]).toEqual(['acme', 'ada', 'oidc:ada']);
    // Colleagues share the workspace, never the credential id (idempotency keys, usage).
    expect([bob.owner, bob.keyId]).toEqual(['acme', 'oidc:bob']);
    const auth0 = verifier({ ownerClaim: 'https://weft.example.com/org' });
    const token = await idp.sign({ 'https://weft.example.com/org': 'org_7Hd2' });
    expect((await auth0.verify(token)).owner).toBe('org_7Hd2');
  });

  it('takes a list of exactly one organisation, or an object of one (Keycloak)', async () => {
    const v = verifier({ ownerClaim: 'organization' });
    expect((await v.verify(await idp.sign({ organization: ['acme'] }))).owner).toBe('acme');
    const attributes = { organization: { acme: { id: '42b7' } } };
    expect((await v.verify(await idp.sign(attributes))).owner).toBe('acme');
  });

  it('refuses a token without the claim (401 missing_claim naming it)', async () => {
    const v = verifier({ ownerClaim: 'org_id' });
    const error = await v.verify(await idp.sign({ org: 'acme' })).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'UNAUTHORIZED',
      details: { reason: 'missing_claim', claim: 'org_id' },
    });
    expect((error as Error).message).toContain('WEFT_OIDC_OWNER_CLAIM');
  });

  it('refuses a claim that names no single workspace (401 bad_claim naming it)', async () => {
    const v = verifier({ ownerClaim: 'org' });
    const objects = [{ a: {}, b: {} }, { name: 'acme' }, { acme: ['x'] }];
    for (const org of [42, ['acme', 'globex'], [], 'oidc:ada', '', 'a b', [7], ...objects]) {
      const error = await v.verify(await idp.sign({ org })).catch((e: unknown) => e);
      expect({ org, error }).toMatchObject({
        org,
        error: { code: 'UNAUTHORIZED', details: { reason: 'bad_claim', claim: 'org' } },
      });
    }
  });

  it('is the fixed owner of the issuer, or oidc-users when none is set', async () => {
    const token = await idp.sign({ org: 'acme' });
    expect((await verifier({ owner: 'acme' }).verify(token)).owner).toBe('acme');
    expect((await verifier().verify(token)).owner).toBe('oidc-users');
  });
});
