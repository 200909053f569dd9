import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TestIdentityProvider } from '@weft/identity/testing';
import { launchChromium, PageProblems, poll, SHOTS, skipBrowser } from './browser.js';
import { startConsoleServer, type ConsoleServer } from './server.js';

/** What the tests read and write in the page (no DOM types here). */
interface InPage {
  sessionStorage: {
    getItem(key: string): string | null;
    setItem(key: string, value: string): void;
  };
}

const HELLO = `workflows:
  - name: hello
    steps:
      - { name: greet, type: transform, input: { hi: true } }
`;

const SIGNED_OUT =
  /Signed out: your sign-in could not be renewed \(the identity provider did not give a token: invalid_grant\); sign in again/;

let idp: TestIdentityProvider;
let weft: ConsoleServer;
let browser: Browser;
const problems = new PageProblems();

describe.skipIf(skipBrowser)(
  'renewing the identity provider token in the console',
  { timeout: 60_000 },
  () => {
    beforeAll(async () => {
      idp = await new TestIdentityProvider().start();
      idp.signInClaims = { sub: 'ada', preferred_username: 'ada' };
      idp.clientIds = ['weft-console'];
      weft = await startConsoleServer({
        identity: {
          // No leeway: a token is refused the second it expires.
          oidc: { issuer: idp.url, audience: 'weft', clockToleranceSeconds: 0 },
          oidcClientId: 'weft-console',
          oidcName: 'Test IdP',
          oidcScope: 'openid offline_access',
        },
      });
      const own = await fetch(`${weft.url}/workflows/executions`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${await idp.sign({ sub: 'ada' })}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ workflow: HELLO }),
      });
      expect(own.status).toBeLessThan(300);
      browser = await launchChromium();
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
      await weft?.close();
      await idp?.stop();
    });
    afterEach(() => {
      const unexpected = problems.unexpected();
      idp.accessTokenLifetimeSeconds = 3600;
      expect(unexpected).toEqual([]);
    });

    /** A new tab signed in with the provider, on the executions page showing ada's run. */
    async function signedIn(): Promise<Page> {
      const page = await problems.newPage(browser);
      await page.goto(`${weft.url}/`);
      await page.getByRole('button', { name: 'Sign in with Test IdP' }).click();
      await page.getByRole('heading', { name: 'Executions' }).waitFor();
      await poll(() => rows(page)).toBe(1);
      return page;
    }

    const rows = (page: Page) => page.getByRole('row').filter({ hasText: 'hello' }).count();
    const stored = (page: Page, key: string) =>
      page.evaluate(
        (name) => (globalThis as unknown as InPage).sessionStorage.getItem(name),
        `weft.console.${key}`,
      );
    const refreshToken = async (page: Page) =>
      (JSON.parse((await stored(page, 'refresh')) ?? '{}') as { refresh_token?: string })
        .refresh_token;
    /** Puts an expired token of ada's in the tab, as if its renewal had been missed. */
    const expire = async (page: Page) => {
      const now = Math.floor(Date.now() / 1000);
      const old = await idp.sign({ sub: 'ada', iat: now - 20, exp: now - 10 });
      await page.evaluate(
        (token) =>
          (globalThis as unknown as InPage).sessionStorage.setItem('weft.console.token', token),
        old,
      );
    };
    /** Opens the run's page (a load of its own) and waits for its record. */
    const openRun = async (page: Page) => {
      await page.getByRole('link', { name: 'hello', exact: true }).click();
      await page.getByRole('heading', { name: 'Execution of hello' }).waitFor();
      await poll(() => page.getByTestId('execution-status').textContent()).toBe('completed');
    };
    const weftAnswer = async (token: string | null) =>
      (
        await fetch(`${weft.url}/workflows/executions?limit=1`, {
          headers: { authorization: `Bearer ${token}` },
        })
      ).status;

    it('renews a 4-second token before it expires: the user stays signed in and sees data', async () => {
      idp.accessTokenLifetimeSeconds = 4;
      const page = await signedIn();
      const first = await stored(page, 'token');
      const firstRefresh = await refreshToken(page);
      expect(firstRefresh).toMatch(/^[\w-]{43}$/);
      const before = idp.tokenRequests;
      // Two renewals, both before the token in use expired (no 401 is logged: none happened).
      await poll(() => Promise.resolve(idp.tokenRequests)).toBeGreaterThanOrEqual(before + 2);
      // The first token has expired by now (the server allows no leeway).
      await poll(() => weftAnswer(first)).toBe(401);
      await openRun(page);
      expect(await page.getByRole('alert').count()).toBe(0);
      expect(await stored(page, 'token')).not.toBe(first);
      expect(await refreshToken(page)).not.toBe(firstRefresh);
      expect(idp.tokenErrors).toEqual([]);
      await page.context().close();
    });

    it('renews once on a 401 and sends the request again', async () => {
      problems.expected = [/status of 401/];
      const page = await signedIn();
      await expire(page);
      const before = idp.tokenRequests;
      await openRun(page);
      expect(idp.tokenRequests).toBe(before + 1);
      expect(await page.getByRole('alert').count()).toBe(0);
      expect(await weftAnswer(await stored(page, 'token'))).toBe(200);
      // The next page works on with the renewed token, without another renewal.
      await page.getByRole('link', { name: 'Executions', exact: true }).click();
      await poll(() => rows(page)).toBe(1);
      expect(idp.tokenRequests).toBe(before + 1);
      await page.context().close();
    });

    it('signs out with a message when the refresh token was used already, and stops', async () => {
      problems.expected = [/status of 401/, /status of 400/];
      const page = await signedIn();
      // Someone else renewed with this tab's refresh token first (rotation made it unusable).
      const renewed = await fetch(`${idp.url}/token`, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: (await refreshToken(page)) ?? '',
          client_id: 'weft-console',
        }),
      });
      expect(renewed.status).toBe(200);
      await expire(page);
      const before = idp.tokenRequests;
      await page.getByRole('link', { name: 'hello', exact: true }).click();
      await poll(() => page.getByRole('alert').textContent()).toMatch(SIGNED_OUT);
      await page.getByLabel('API key').waitFor();
      expect(await page.getByRole('button', { name: 'Sign in with Test IdP' }).count()).toBe(1);
      await page.screenshot({ path: `${SHOTS}sign-in-renewal-failed.png` });
      expect(await stored(page, 'token')).toBeNull();
      expect(await stored(page, 'refresh')).toBeNull();
      // One refused renewal, no second try, no loop.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(idp.tokenRequests).toBe(before + 1);
      expect(idp.tokenErrors.at(-1)).toBe('invalid_grant');
      // Signing in again works, and the message is gone.
      await page.getByRole('button', { name: 'Sign in with Test IdP' }).click();
      await page.getByRole('heading', { name: 'Executions' }).waitFor();
      await poll(() => rows(page)).toBe(1);
      expect(await page.getByRole('alert').count()).toBe(0);
      await page.context().close();
    });

    it('signs out with a message when a renewal before expiry is refused (revoked)', async () => {
      problems.expected = [/status of 400/];
      idp.accessTokenLifetimeSeconds = 2;
      const page = await signedIn();
      idp.revokeRefreshTokens();
      await poll(() => page.getByRole('alert').textContent()).toMatch(SIGNED_OUT);
      expect(await stored(page, 'token')).toBeNull();
      await page.context().close();
    });
  },
);
