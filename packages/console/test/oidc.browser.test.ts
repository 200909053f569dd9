import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TestIdentityProvider } from '@weft/identity/testing';
import { launchChromium, PageProblems, poll, SHOTS, skipBrowser } from './browser.js';
import { startConsoleServer, type ConsoleServer } from './server.js';

/** What the tests read in the page (no DOM types here). */
interface InPage {
  sessionStorage: { getItem(key: string): string | null };
  history: { length: number };
}

const HELLO = `workflows:
  - name: hello
    steps:
      - { name: greet, type: transform, input: { hi: true } }
`;

let idp: TestIdentityProvider;
let weft: ConsoleServer;
let browser: Browser;
const problems = new PageProblems();

describe.skipIf(skipBrowser)(
  'signing in to the console with the identity provider',
  { timeout: 60_000 },
  () => {
    beforeAll(async () => {
      idp = await new TestIdentityProvider().start();
      idp.signInClaims = { sub: 'ada', preferred_username: 'ada', org: 'acme' };
      idp.clientIds = ['weft-console'];
      weft = await startConsoleServer({
        identity: {
          oidc: { issuer: idp.url, audience: 'weft', ownerClaim: 'org' },
          oidcClientId: 'weft-console',
          oidcName: 'Test IdP',
        },
      });
      browser = await launchChromium();
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
      await weft?.close();
      await idp?.stop();
    });
    afterEach(() => {
      const unexpected = problems.unexpected();
      idp.failTokens = undefined;
      expect(unexpected).toEqual([]);
    });

    const newPage = () => problems.newPage(browser);

    const token = (page: Page) =>
      page.evaluate(() =>
        (globalThis as unknown as InPage).sessionStorage.getItem('weft.console.token'),
      );

    it('answers the provider on GET /auth/config and lets the page reach its token endpoint', async () => {
      const answer = await fetch(`${weft.url}/auth/config`);
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({
        api_keys: true,
        oidc: {
          name: 'Test IdP',
          issuer: idp.url,
          client_id: 'weft-console',
          authorization_endpoint: `${idp.url}/authorize`,
          token_endpoint: `${idp.url}/token`,
          scope: 'openid',
          redirect_path: '/console/callback',
          code_challenge_method: 'S256',
        },
      });
      const page = await fetch(`${weft.url}/console/`);
      expect(page.headers.get('content-security-policy')).toContain(
        `connect-src 'self' ${idp.url}`,
      );
    });

    it('signs in by authorization code + PKCE and shows the workspace and its executions', async () => {
      const own = await fetch(`${weft.url}/workflows/executions`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${await idp.sign({ sub: 'ada', org: 'acme' })}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ workflow: HELLO }),
      });
      expect(own.status).toBeLessThan(300);
      const before = idp.tokenRequests;
      const page = await newPage();
      await page.goto(`${weft.url}/`);
      await page.screenshot({ path: `${SHOTS}sign-in-oidc.png` });
      await page.getByRole('button', { name: 'Sign in with Test IdP' }).click();
      await page.getByRole('heading', { name: 'Executions' }).waitFor();
      expect(page.url()).toBe(`${weft.url}/console/executions`);
      await poll(() => page.getByRole('row').filter({ hasText: 'hello' }).count()).toBe(1);
      // The header names the workspace the token's org claim puts the user in.
      await poll(() => page.getByTestId('workspace').textContent()).toBe('acme');
      expect(idp.tokenRequests).toBe(before + 1);
      expect(idp.tokenErrors).toEqual([]);
      const kept = await token(page);
      expect(kept).toMatch(/^ey/);
      // Scope `openid` only: no refresh token, nothing to renew (a 401 means signing in again).
      expect(
        await page.evaluate(() =>
          (globalThis as unknown as InPage).sessionStorage.getItem('weft.console.refresh'),
        ),
      ).toBeNull();
      // The code never stays in the history: going back leaves the console for the sign-in page.
      await page.goBack();
      expect(page.url()).not.toContain('code=');
      await page.context().close();
    });

    it('refuses a callback whose state this tab did not send, and exchanges nothing', async () => {
      const before = idp.tokenRequests;
      const page = await newPage();
      await page.goto(`${weft.url}/`);
      await page.getByRole('button', { name: 'Sign in with Test IdP' }).waitFor();
      await page.goto(`${weft.url}/console/callback?code=stolen&state=forged`);
      await poll(() => page.getByRole('alert').textContent()).toMatch(/SIGN_IN_FAILED/);
      expect(page.url()).toBe(`${weft.url}/console/callback`);
      expect(await token(page)).toBeNull();
      expect(idp.tokenRequests).toBe(before);
      await page.getByRole('link', { name: 'Back to the sign-in page' }).click();
      await page.getByLabel('API key').waitFor();
      await page.context().close();
    });

    it('shows a failed exchange and signs nobody in', async () => {
      idp.failTokens = 'invalid_grant';
      problems.expected = [/status of 400/];
      const page = await newPage();
      await page.goto(`${weft.url}/`);
      await page.getByRole('button', { name: 'Sign in with Test IdP' }).click();
      await poll(() => page.getByRole('alert').textContent()).toMatch(
        /SIGN_IN_FAILED.*invalid_grant/,
      );
      expect(await token(page)).toBeNull();
      await page.screenshot({ path: `${SHOTS}sign-in-oidc-failed.png` });
      expect(await page.getByRole('heading', { name: 'Executions' }).count()).toBe(0);
      await page.context().close();
    });
  },
);
