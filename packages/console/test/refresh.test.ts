import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TestIdentityProvider } from '@weft/identity/testing';
import { WeftClient } from '@weft/sdk/client';
import { TokenRefresher } from '../src/refresh.js';
import { storedKey, storedRefresh, storeRefresh, storeToken } from '../src/session.js';
import { startConsoleServer, type ConsoleServer } from './server.js';

/** The browser's session storage, in memory (Node has none). */
class MemoryStorage {
  private readonly items = new Map<string, string>();
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.items.set(key, value);
  }
  removeItem(key: string): void {
    this.items.delete(key);
  }
  clear(): void {
    this.items.clear();
  }
}
const storage = new MemoryStorage();
(globalThis as unknown as { sessionStorage: MemoryStorage }).sessionStorage = storage;

const REDIRECT = 'http://127.0.0.1:1/console/callback';

let idp: TestIdentityProvider;
let weft: ConsoleServer;

beforeAll(async () => {
  idp = await new TestIdentityProvider().start();
  idp.signInClaims = { sub: 'ada' };
  weft = await startConsoleServer({
    identity: { oidc: { issuer: idp.url, audience: 'weft', clockToleranceSeconds: 0 } },
  });
});
afterAll(async () => {
  await weft?.close();
  await idp?.stop();
});
beforeEach(() => storage.clear());

/** Signs ada in over real HTTP (code + PKCE, offline_access) and keeps an expired access token. */
async function signInExpired(): Promise<void> {
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URL(`${idp.url}/authorize`);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: 'weft-console',
    redirect_uri: REDIRECT,
    scope: 'openid offline_access',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  const redirect = await fetch(authorize, { redirect: 'manual' });
  const code = new URL(redirect.headers.get('location') ?? '').searchParams.get('code') ?? '';
  const answer = await fetch(`${idp.url}/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: 'weft-console',
      code_verifier: verifier,
    }),
  });
  const body = (await answer.json()) as { refresh_token: string };
  const now = Math.floor(Date.now() / 1000);
  storeToken(await idp.sign({ sub: 'ada', iat: now - 20, exp: now - 10 }));
  storeRefresh({
    refresh_token: body.refresh_token,
    token_endpoint: `${idp.url}/token`,
    client_id: 'weft-console',
  });
}

function client(refresher: TokenRefresher): WeftClient {
  return new WeftClient({
    baseUrl: weft.url,
    apiKey: () => storedKey() ?? undefined,
    fetch: refresher.fetch,
  });
}

const settle = (client: WeftClient, count: number) =>
  Promise.allSettled(Array.from({ length: count }, () => client.listExecutions({ limit: 1 }))).then(
    (results) => results.map((result) => result.status),
  );

describe('renewing the provider token on a 401', () => {
  it('shares one renewal among concurrent 401s and sends each request again once', async () => {
    await signInExpired();
    const ended: string[] = [];
    const refresher = new TokenRefresher((message) => ended.push(message));
    const old = storedKey();
    const before = idp.tokenRequests;
    expect(await settle(client(refresher), 5)).toEqual(Array(5).fill('fulfilled'));
    expect(idp.tokenRequests).toBe(before + 1);
    expect(storedKey()).not.toBe(old);
    expect(storedRefresh()?.expires_at).toBeGreaterThan(Date.now());
    expect(ended).toEqual([]);
    refresher.stop();
  });

  it('ends the sign-in once when the provider refuses, without a second try', async () => {
    await signInExpired();
    idp.revokeRefreshTokens();
    const ended: string[] = [];
    const refresher = new TokenRefresher((message) => ended.push(message));
    const before = idp.tokenRequests;
    const api = client(refresher);
    expect(await settle(api, 4)).toEqual(Array(4).fill('rejected'));
    await expect(api.listExecutions({ limit: 1 })).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
    expect(idp.tokenRequests).toBe(before + 1);
    expect(ended).toEqual([
      'your sign-in could not be renewed (the identity provider did not give a token: invalid_grant); sign in again',
    ]);
  });

  it('ends the sign-in when the token endpoint cannot be reached', async () => {
    await signInExpired();
    storeRefresh({ ...storedRefresh()!, token_endpoint: 'http://127.0.0.1:1/token' });
    const ended: string[] = [];
    const refresher = new TokenRefresher((message) => ended.push(message));
    expect(await settle(client(refresher), 2)).toEqual(['rejected', 'rejected']);
    expect(ended).toHaveLength(1);
    expect(ended[0]).toMatch(
      /^your sign-in could not be renewed \(cannot reach the token endpoint/,
    );
  });

  it('leaves a 401 alone without a refresh token', async () => {
    await signInExpired();
    storeRefresh(undefined);
    const ended: string[] = [];
    const refresher = new TokenRefresher((message) => ended.push(message));
    const before = idp.tokenRequests;
    expect(await settle(client(refresher), 2)).toEqual(['rejected', 'rejected']);
    expect(idp.tokenRequests).toBe(before);
    expect(ended).toEqual([]);
  });
});
