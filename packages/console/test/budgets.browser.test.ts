import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { browserSuite, launchChromium, PageProblems, skipBrowser } from './browser.js';
import { checked } from './quality.js';
import { startConsoleServer, type ConsoleServer } from './server.js';

const title = browserSuite('the budgets page in Chromium');
let weft: ConsoleServer;
let browser: Browser;
const problems = new PageProblems();

describe.skipIf(skipBrowser)(title, { timeout: 60_000 }, () => {
  beforeAll(async () => {
    weft = await startConsoleServer();
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await weft?.close();
  });
  afterEach(() => expect(problems.unexpected()).toEqual([]));

  it("shows the workspace's budget with what it spent and holds against the limit", async () => {
    const set = await fetch(`${weft.url}/budgets/workspaces/acme`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${weft.keys.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ max_cost: 50, max_tokens: 1000000, period: 'month' }),
    });
    expect(set.status).toBe(200);
    const page = await problems.newPage(browser);
    await page.goto(`${weft.url}/`);
    await page.getByLabel('API key').fill(weft.keys.clerk);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Budgets', exact: true }).click();
    await page.getByRole('heading', { name: 'Budgets' }).waitFor();
    const row = page.getByRole('row', { name: /Workspace acme/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('$0.00 spent, $0.00 reserved of $50.00');
    expect(await row.textContent()).toContain('0 spent, 0 reserved of 1,000,000');
    await expect(
      page.getByRole('img', { name: '$0.00 spent, $0.00 reserved of $50.00' }).count(),
    ).resolves.toBe(1);
    await checked(page, 'budgets');
  });
});
