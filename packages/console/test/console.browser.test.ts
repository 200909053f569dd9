import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { browserSuite, launchChromium, PageProblems, poll, SHOTS, skipBrowser } from './browser.js';
import { FAILING, LIVE, PAYOUT, startConsoleServer, type ConsoleServer } from './server.js';

const title = browserSuite('the console in Chromium');

/** What the tests read in the page (this file is type-checked without the DOM's types). */
interface InPage {
  sessionStorage: { getItem(key: string): string | null; length: number };
  marker?: string;
  document: { activeElement: { textContent: string | null } | null };
}

let weft: ConsoleServer;
let browser: Browser;
/** A secret of the server's runtime: no answer and no page may show it. */
const TOKEN = 'tok-very-secret-123';
/** A workflow whose step input reads that secret. */
const SIGNED = `workflows:
  - name: signed
    inputs:
      city: { type: string, required: true }
    steps:
      - name: sign
        plugin: gate
        action: echo
        input: { header: 'Bearer {{ secrets.API_TOKEN }}', city: '{{ inputs.city }}' }
`;
const problems = new PageProblems();

describe.skipIf(skipBrowser)(title, { timeout: 60_000 }, () => {
  beforeAll(async () => {
    weft = await startConsoleServer({ runtimeSecrets: { API_TOKEN: TOKEN } });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await weft?.close();
  });
  afterEach(() => expect(problems.unexpected()).toEqual([]));

  const newPage = () => problems.newPage(browser);

  async function signIn(page: Page, key: string): Promise<void> {
    await page.goto(`${weft.url}/`);
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Executions' }).waitFor();
  }

  it('signs in with an API key kept in session storage, never in the URL', async () => {
    const page = await newPage();
    await page.goto(`${weft.url}/`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(page.url()).toBe(`${weft.url}/console/executions`);
    await page.screenshot({ path: `${SHOTS}sign-in.png` });

    problems.expected = [/status of 401/];
    await page.getByLabel('API key').fill('wk_not_a_key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await poll(() => page.getByRole('alert').textContent()).toMatch(/UNAUTHORIZED/);

    // By keyboard alone: type the key, Enter; then Tab to a section and open it with Enter.
    await page.getByLabel('API key').fill('');
    await page.getByLabel('API key').focus();
    await page.keyboard.type(weft.keys.clerk);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Executions' }).waitFor();
    expect(page.url()).not.toContain(weft.keys.clerk);
    // Past the filters of the list (times take a stop per field), round to the sections.
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press('Tab');
      if (
        (await page.evaluate(
          () => (globalThis as unknown as InPage).document.activeElement?.textContent,
        )) === 'Approvals'
      )
        break;
    }
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Approvals' }).waitFor();
    expect(
      await page.evaluate(() =>
        (globalThis as unknown as InPage).sessionStorage.getItem('weft.console.apiKey'),
      ),
    ).toBe(weft.keys.clerk);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await page.evaluate(() => (globalThis as unknown as InPage).sessionStorage.length)).toBe(
      0,
    );
    await page.context().close();
  });

  it('follows a run from running to completed live, without a reload', async () => {
    const id = await weft.start(LIVE, { gate: 'live' });
    await weft.waitFor(id, 'running');
    const page = await newPage();
    await signIn(page, weft.keys.clerk);
    const row = page.getByRole('row').filter({ hasText: 'live' });
    await poll(() => row.textContent()).toMatch(/running/);
    await row.getByRole('link', { name: 'live' }).click();
    const status = page.getByTestId('execution-status');
    await poll(() => status.textContent()).toBe('running');
    await poll(() => page.locator('li[data-step="hold"]').textContent()).toMatch(/running/);
    await page.evaluate(() => {
      (globalThis as unknown as InPage).marker = 'same page';
    });
    await page.screenshot({ path: `${SHOTS}execution-running.png`, fullPage: true });

    weft.release('live');
    await poll(() => status.textContent()).toBe('completed');
    await poll(() => page.locator('li[data-step="after"]').textContent()).toMatch(/success/);
    expect(await page.evaluate(() => (globalThis as unknown as InPage).marker)).toBe('same page');
    await page.getByRole('heading', { name: 'Outputs' }).waitFor();
    await expect
      .poll(() => page.getByLabel('Workflow outputs').textContent())
      .toMatch(/"ok": true/);
    await page.screenshot({ path: `${SHOTS}execution-completed.png`, fullPage: true });
    await page.context().close();
  });

  it('cancels a running run from its page', async () => {
    const id = await weft.start(LIVE, { gate: 'never' });
    await weft.waitFor(id, 'running');
    const page = await newPage();
    await signIn(page, weft.keys.clerk);
    await page.goto(`${weft.url}/console/executions/${id}`);
    const status = page.getByTestId('execution-status');
    await poll(() => status.textContent()).toBe('running');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Yes, cancel the run' }).click();
    await poll(() => status.textContent()).toBe('canceled');
    await poll(() => page.getByRole('button', { name: 'Cancel' }).count()).toBe(0);
    await page.context().close();
  });

  it("opens a failed step's error", async () => {
    const id = await weft.start(FAILING);
    await weft.waitFor(id, 'failed');
    const page = await newPage();
    await signIn(page, weft.keys.clerk);
    await page.getByRole('combobox', { name: 'Status' }).selectOption('failed');
    await page.getByRole('link', { name: 'failing' }).first().click();
    await poll(() => page.getByTestId('execution-status').textContent()).toBe('failed');
    const step = page.locator('li[data-step="explode"]');
    await poll(() => step.textContent()).toMatch(/failed/);
    await step.getByText('Error of explode').click();
    await poll(() => step.getByRole('alert').textContent()).toMatch(/failed on purpose/);
    await page.screenshot({ path: `${SHOTS}execution-failed.png`, fullPage: true });
    await page.context().close();
  });

  it("shows a step's input beside its output, never a secret", async () => {
    const id = await weft.start(SIGNED, { city: 'Berlin' });
    await weft.waitFor(id, 'completed');
    const headers = { authorization: `Bearer ${weft.keys.clerk}` };
    const record = await (
      await fetch(`${weft.url}/workflows/executions/${id}`, { headers })
    ).text();
    const events = await (
      await fetch(`${weft.url}/workflows/executions/${id}/events`, { headers })
    ).text();
    for (const answer of [record, events]) expect(answer).not.toContain(TOKEN);
    const steps = (JSON.parse(record) as { result: { steps: Record<string, { input: unknown }> } })
      .result.steps;
    expect(steps['sign']!.input).toEqual({ header: '***', city: 'Berlin' });
    const page = await newPage();
    await signIn(page, weft.keys.clerk);
    await page.goto(`${weft.url}/console/executions/${id}`);
    await poll(() => page.getByTestId('execution-status').textContent()).toBe('completed');
    const step = page.locator('li[data-step="sign"]');
    await step.getByText('Input of sign').click();
    await step.getByText('Output of sign').click();
    await poll(() => step.getByLabel('Input of sign').textContent()).toMatch(
      /"header": "\*\*\*"[\s\S]*"city": "Berlin"/,
    );
    await poll(() => step.getByLabel('Output of sign').textContent()).toMatch(
      /"header": "Bearer \*\*\*"/,
    );
    expect(await page.content()).not.toContain(TOKEN);
    await page.screenshot({ path: `${SHOTS}execution-input.png`, fullPage: true });
    await page.context().close();
  });

  it('approves a waiting run with a comment', async () => {
    const id = await weft.start(PAYOUT, { amount: 42 });
    await weft.waitFor(id, 'waiting');
    const page = await newPage();
    await signIn(page, weft.keys.lead);
    await page.getByRole('link', { name: 'Approvals' }).click();
    const card = page.getByRole('listitem').filter({ hasText: 'payout' });
    await card.getByLabel('Comment (optional)').fill('checked the invoice');
    await page.screenshot({ path: `${SHOTS}approvals.png`, fullPage: true });
    await card.getByRole('button', { name: 'Approve' }).click();
    await expect
      .poll(() => page.getByRole('status').first().textContent())
      .toMatch(/payout: approved/);
    await weft.waitFor(id, 'completed');
    await page.context().close();
  });

  it('searches the registry and opens a plugin', async () => {
    const published = await fetch(`${weft.url}/plugins`, {
      method: 'POST',
      headers: { authorization: `Bearer ${weft.keys.clerk}`, 'content-type': 'application/json' },
      body: JSON.stringify(WEATHER),
    });
    expect(published.status).toBe(201);
    const page = await newPage();
    await signIn(page, weft.keys.clerk);
    await page.getByRole('link', { name: 'Plugins' }).click();
    await page.getByRole('searchbox', { name: 'Search plugins' }).fill('forecast');
    await page.keyboard.press('Enter');
    await page.getByRole('link', { name: 'Weather' }).click();
    await page.getByRole('heading', { name: 'Weather' }).waitFor();
    await expect
      .poll(() => page.locator('.checksum').textContent())
      .toMatch(/^sha256:[0-9a-f]{64}$/);
    await page.getByText('Input schema of forecast').click();
    await poll(() => page.locator('details[open] pre').textContent()).toMatch(/"city"/);
    await page.screenshot({ path: `${SHOTS}plugin.png`, fullPage: true });

    await page.getByRole('link', { name: 'Deployments' }).click();
    await page.getByText('No workflow is deployed.').waitFor();
    await page.context().close();
  });

  it('shows the next schedule fires of a deployed workflow', async () => {
    const deployed = await fetch(`${weft.url}/workflows/report`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${weft.keys.clerk}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'report',
        version: '1.0.0',
        triggers: [{ type: 'schedule', cron: '0 9 * * *', timezone: 'Europe/Berlin' }],
        steps: [{ name: 'sum', type: 'transform', input: { ok: true } }],
      }),
    });
    expect(deployed.status).toBe(201);
    const page = await newPage();
    await signIn(page, weft.keys.clerk);
    await page.getByRole('link', { name: 'Deployments' }).click();
    const fires = page.getByRole('list', { name: 'Next schedule fires of report' });
    await poll(() => fires.textContent()).toMatch(/0 9 \* \* \* \(Europe\/Berlin\)/);
    const times = await fires
      .locator('time')
      .evaluateAll((nodes) =>
        nodes.map((node) => (node as unknown as { dateTime: string }).dateTime),
      );
    expect(times).toHaveLength(3);
    for (const at of times) expect(Date.parse(at)).toBeGreaterThan(Date.now());
    await page.screenshot({ path: `${SHOTS}deployments.png`, fullPage: true });
    await page.getByRole('link', { name: 'report' }).click();
    await page.getByRole('heading', { name: 'report' }).waitFor();
    await poll(() => fires.locator('time').count()).toBe(3);
    await page.context().close();
  });

  it('logs how fast a first visit becomes usable (cold cache, for the report, not asserted)', async () => {
    const samples: number[] = [];
    for (let i = 0; i < 3; i++) {
      const page = await newPage();
      const started = performance.now();
      await page.goto(`${weft.url}/console/`);
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      samples.push(performance.now() - started);
      await page.context().close();
    }
    samples.sort((a, b) => a - b);
    console.log(
      `first load (cold cache, to a usable sign-in form): ${samples.map((ms) => `${Math.round(ms)} ms`).join(', ')}`,
    );
  });
});

const WEATHER = {
  slug: 'weather',
  version: '1.0.0',
  name: 'Weather',
  description: 'Forecasts for a city.',
  author: 'Acme Corp',
  homepage: 'https://example.com/weather',
  repository: 'https://github.com/acme/weather',
  license: 'MIT',
  tags: ['forecast'],
  icon: 'https://example.com/weather.svg',
  actions: [
    {
      name: 'forecast',
      description: 'The forecast of a city',
      input_schema: {
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city'],
      },
      output_schema: { type: 'object', properties: { summary: { type: 'string' } } },
    },
  ],
};
