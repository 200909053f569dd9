import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestIdentityProvider } from '@weft/identity/testing';
import { compileServerOptions, serverOptionsFromEnv } from './config.js';
import { startServer, type RunningServer } from './start.js';

const idp = new TestIdentityProvider();
const work = mkdtempSync(join(tmpdir(), 'weft-server-auth-config-'));
let server: RunningServer;
let plain: RunningServer;

beforeAll(async () => {
  await idp.start();
  server = await startServer({
    port: 0,
    dataDir: join(work, 'data'),
    logLevel: 'silent',
    identity: { oidc: { issuer: idp.url, audience: 'weft' }, oidcClientId: 'console' },
  });
  plain = await startServer({ port: 0, dataDir: join(work, 'plain'), logLevel: 'silent' });
});
afterAll(async () => {
  await server?.close();
  await plain?.close();
  await idp.stop();
  rmSync(work, { recursive: true, force: true });
});

const fromEnv = (env: Record<string, string>) => compileServerOptions(serverOptionsFromEnv(env));

describe('GET /auth/config', () => {
  it('answers API keys only without a client id, and no extra connect-src', async () => {
    const answer = await fetch(`${plain.url}/auth/config`);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ api_keys: true, oidc: null });
  });

  it('answers the endpoints of the discovery document, named by the issuer host', async () => {
    const body = (await (await fetch(`${server.url}/auth/config`)).json()) as {
      oidc: Record<string, string>;
    };
    expect(body.oidc).toMatchObject({
      name: new URL(idp.url).host,
      client_id: 'console',
      token_endpoint: `${idp.url}/token`,
    });
  });

  it('answers 503 while the provider is down, and the page then connects to itself only', async () => {
    idp.mode = 'down';
    // Past the ten-minute cache: a server of its own, started while the provider is down.
    const down = await startServer({
      port: 0,
      dataDir: join(work, 'down'),
      logLevel: 'silent',
      identity: { oidc: { issuer: idp.url, audience: 'weft' }, oidcClientId: 'console' },
    });
    try {
      const answer = await fetch(`${down.url}/auth/config`);
      expect(answer.status).toBe(503);
      expect(((await answer.json()) as { code: string }).code).toBe('UNAVAILABLE');
      const page = await fetch(`${down.url}/console/`);
      if (page.status === 200) {
        expect(page.headers.get('content-security-policy')).toContain("connect-src 'self';");
      }
    } finally {
      idp.mode = 'up';
      await down.close();
    }
  });

  it('serves the console page without waiting for a provider that does not answer', async () => {
    idp.mode = 'hang';
    const hung = await startServer({
      port: 0,
      dataDir: join(work, 'hung'),
      logLevel: 'silent',
      identity: {
        oidc: { issuer: idp.url, audience: 'weft', timeoutMs: 60_000 },
        oidcClientId: 'console',
      },
    });
    try {
      const page = await fetch(`${hung.url}/console/`);
      if (page.status === 200) {
        expect(page.headers.get('content-security-policy')).toContain("connect-src 'self';");
      }
    } finally {
      idp.mode = 'up';
      await hung.close();
    }
  });

  it('refuses a client id without an issuer, or one with spaces, naming the variable', () => {
    expect(() => fromEnv({ WEFT_OIDC_CLIENT_ID: 'console' })).toThrow(
      /^WEFT_OIDC_CLIENT_ID is set but WEFT_OIDC_ISSUER is not/,
    );
    expect(() =>
      fromEnv({
        WEFT_OIDC_ISSUER: 'https://id.example.com',
        WEFT_OIDC_AUDIENCE: 'weft',
        WEFT_OIDC_CLIENT_ID: 'a b',
      }),
    ).toThrow(/^WEFT_OIDC_CLIENT_ID must be/);
    expect(
      fromEnv({
        WEFT_OIDC_ISSUER: 'https://id.example.com',
        WEFT_OIDC_AUDIENCE: 'weft',
        WEFT_OIDC_CLIENT_ID: 'console',
        WEFT_OIDC_NAME: 'Acme SSO',
        WEFT_OIDC_SCOPE: 'openid profile',
      }).identity.signIn,
    ).toEqual({ clientId: 'console', name: 'Acme SSO', scope: 'openid profile' });
  });
});

describe('the testing provider’s code exchange', () => {
  it('gives a token for the right verifier only, once per code', async () => {
    const verifier = 'v'.repeat(43);
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const code = async () => {
      const url = new URL(`${idp.url}/authorize`);
      for (const [name, value] of Object.entries({
        response_type: 'code',
        client_id: 'console',
        redirect_uri: 'http://127.0.0.1:1/console/callback',
        state: 's1',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }))
        url.searchParams.set(name, value);
      const answer = await fetch(url, { redirect: 'manual' });
      const back = new URL(answer.headers.get('location')!);
      expect(back.searchParams.get('state')).toBe('s1');
      return back.searchParams.get('code')!;
    };
    const exchange = async (value: string, codeVerifier: string) => {
      const answer = await fetch(`${idp.url}/token`, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: value,
          redirect_uri: 'http://127.0.0.1:1/console/callback',
          client_id: 'console',
          code_verifier: codeVerifier,
        }),
      });
      return { status: answer.status, body: (await answer.json()) as Record<string, string> };
    };
    expect((await exchange(await code(), 'w'.repeat(43))).body).toEqual({
      error: 'invalid_grant',
    });
    const good = await code();
    const first = await exchange(good, verifier);
    expect(first.status).toBe(200);
    const who = await fetch(`${server.url}/auth/whoami`, {
      headers: { authorization: `Bearer ${first.body['access_token']}` },
    });
    expect(who.status).toBe(200);
    expect((await exchange(good, verifier)).body).toEqual({ error: 'invalid_grant' });
  });
});
