import { createHash, randomBytes } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestIdentityProvider } from './identity-provider.js';

const REDIRECT = 'http://127.0.0.1:1/console/callback';

let idp: TestIdentityProvider;

beforeAll(async () => {
  idp = await new TestIdentityProvider().start();
  idp.clientIds = ['console', 'other'];
});
afterAll(() => idp.stop());

/** A real authorization code + PKCE sign-in: the token endpoint's answer. */
async function signIn(scope: string, clientId = 'console') {
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URL(`${idp.url}/authorize`);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope,
    state: 's',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  const redirect = await fetch(authorize, { redirect: 'manual' });
  const code = new URL(redirect.headers.get('location') ?? '').searchParams.get('code') ?? '';
  return token({
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    client_id: clientId,
    code_verifier: verifier,
  });
}

async function token(form: Record<string, string>) {
  const answer = await fetch(`${idp.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  return {
    status: answer.status,
    cacheControl: answer.headers.get('cache-control'),
    body: (await answer.json()) as Record<string, unknown>,
  };
}

const renew = (refreshToken: unknown, extra: Record<string, string> = {}) =>
  token({
    grant_type: 'refresh_token',
    refresh_token: String(refreshToken),
    client_id: 'console',
    ...extra,
  });

describe('the testing identity provider: refresh tokens', () => {
  it('issues no refresh token unless the scope asked for holds offline_access', async () => {
    const answer = await signIn('openid');
    expect(answer.status).toBe(200);
    expect(answer.body['refresh_token']).toBeUndefined();
    expect(answer.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'openid' });
  });

  it('renews once per refresh token, rotating it, with a configurable lifetime', async () => {
    idp.accessTokenLifetimeSeconds = 2;
    try {
      const first = await signIn('openid offline_access');
      expect(first.body).toMatchObject({ expires_in: 2, scope: 'openid offline_access' });
      expect(first.body['refresh_token']).toMatch(/^[\w-]{43}$/);
      const second = await renew(first.body['refresh_token']);
      expect(second.status).toBe(200);
      expect(second.cacheControl).toBe('no-store');
      expect(second.body).toMatchObject({ token_type: 'Bearer', expires_in: 2 });
      expect(second.body['refresh_token']).not.toBe(first.body['refresh_token']);
      const { payload } = await jwtVerify(
        String(second.body['access_token']),
        createRemoteJWKSet(new URL(`${idp.url}/jwks`)),
        { issuer: idp.url, audience: 'weft', clockTolerance: 60 },
      );
      expect(payload.exp! - payload.iat!).toBeGreaterThanOrEqual(2);
      expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(3);
      // The used one is gone (RFC 6749 §5.2); the rotated one works once.
      expect(await renew(first.body['refresh_token'])).toMatchObject({
        status: 400,
        cacheControl: 'no-store',
        body: { error: 'invalid_grant' },
      });
      expect((await renew(second.body['refresh_token'])).status).toBe(200);
      expect(idp.tokenErrors.at(-1)).toBe('invalid_grant');
    } finally {
      idp.accessTokenLifetimeSeconds = 3600;
    }
  });

  it('refuses an unknown token, another client, a wider scope and a missing token', async () => {
    const first = await signIn('openid offline_access');
    const good = first.body['refresh_token'];
    expect((await renew('no-such-token')).body).toEqual({ error: 'invalid_grant' });
    expect((await renew(good, { client_id: 'other' })).body).toEqual({ error: 'invalid_grant' });
    expect((await renew(good, { scope: 'openid admin' })).body).toEqual({
      error: 'invalid_scope',
    });
    expect((await token({ grant_type: 'refresh_token', client_id: 'console' })).body).toEqual({
      error: 'invalid_request',
    });
    // None of those used the token up; a narrower scope is fine.
    const narrower = await renew(good, { scope: 'openid' });
    expect(narrower.status).toBe(200);
    expect(narrower.body['scope']).toBe('openid');
    expect(narrower.body['refresh_token']).toBeUndefined();
  });

  it('refuses revoked refresh tokens, and every renewal while failTokens is set', async () => {
    const first = await signIn('openid offline_access');
    const second = await signIn('openid offline_access');
    idp.failTokens = 'temporarily_unavailable';
    try {
      expect((await renew(first.body['refresh_token'])).body).toEqual({
        error: 'temporarily_unavailable',
      });
    } finally {
      idp.failTokens = undefined;
    }
    idp.revokeRefreshTokens();
    expect((await renew(first.body['refresh_token'])).body).toEqual({ error: 'invalid_grant' });
    expect((await renew(second.body['refresh_token'])).body).toEqual({ error: 'invalid_grant' });
  });

  it('says in its discovery document that it renews', async () => {
    const discovery = (await (
      await fetch(`${idp.url}/.well-known/openid-configuration`)
    ).json()) as { grant_types_supported: string[] };
    expect(discovery.grant_types_supported).toEqual(['authorization_code', 'refresh_token']);
  });
});
