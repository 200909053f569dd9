import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { browserSuite, launchChromium, PageProblems, poll, SHOTS, skipBrowser } from './browser.js';
import { checked } from './quality.js';
import { startConsoleServer, type ConsoleServer } from './server.js';

const title = browserSuite('finding runs, approving with their inputs, the overview (Chromium)');

/** A payout that waits for `lead`; `pin` is a secret input. */
const PAYOUT = `workflows:
  - name: payout
    authorization:
      enabled: true
      roles: [finance]
      approval: { required: true, approvers: [lead], timeout: 600 }
    inputs:
      amount: { type: number, required: true }
      to: { type: string, required: true }
      pin: { type: string, secret: true }
    steps:
      - { name: pay, type: transform, input: { paid: '{{ inputs.amount }}' } }
`;
const PIN = 'pin-4242-do-not-show';
/** A quick workflow, run many times for the paging. */
const QUICK = `workflows:
  - name: quick
    steps:
      - { name: one, type: transform, input: { ok: true } }
`;
/** Deployed as YAML: a comment, a webhook whose secret is named, a schedule in Berlin. */
const NIGHTLY = `# The nightly report, deployed by hand.
name: nightly
version: 1.2.0
triggers:
  - { type: manual }
  - type: webhook
    path: /nightly
    auth: { type: bearer, secret_name: NIGHTLY_HOOK_TOKEN }
  - { type: schedule, cron: '0 9 * * *', timezone: Europe/Berlin }
steps:
  - { name: sum, type: transform, input: { ok: true } }
`;

let weft: ConsoleServer;
let browser: Browser;
const problems = new PageProblems();

describe.skipIf(skipBrowser)(title, { timeout: 120_000 }, () => {
  beforeAll(async () => {
    weft = await startConsoleServer({
      runtimeSecrets: { NIGHTLY_HOOK_TOKEN: 'a-long-hook-token-value-123' },
    });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await weft?.close();
  });
  afterEach(() => expect(problems.unexpected()).toEqual([]));

  const as = (key: string) => ({
    authorization: `Bearer ${key}`,
    'content-type': 'application/json',
  });

  async function signIn(key: string): Promise<Page> {
    const page = await problems.newPage(browser);
    await page.goto(`${weft.url}/`);
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Executions' }).waitFor();
    return page;
  }

  it('serves a strict CSP and less than 400 KB of JavaScript', async () => {
    const answer = await fetch(`${weft.url}/console/executions`);
    const csp = answer.headers.get('content-security-policy') ?? '';
    const scripts = /script-src ([^;]*)/.exec(csp)?.[1] ?? '';
    expect(scripts).toContain("'self'");
    expect(scripts).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    const html = await answer.text();
    let bytes = 0;
    for (const [, src] of html.matchAll(/<script[^>]*src="([^"]+)"/g)) {
      bytes += (await (await fetch(new URL(src!, weft.url))).arrayBuffer()).byteLength;
    }
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThan(400 * 1024);
    const page = await problems.newPage(browser);
    await page.goto(`${weft.url}/`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await checked(page, 'sign-in-axe');
    await page.context().close();
  });

  it('shows what an approver approves, the secret masked, and links the run after', async () => {
    const started = await fetch(`${weft.url}/workflows/executions`, {
      method: 'POST',
      headers: as(weft.keys.clerk),
      body: JSON.stringify({
        workflow: PAYOUT,
        inputs: { amount: 50000, to: 'initech', pin: PIN },
      }),
    });
    const id = ((await started.json()) as { execution_id: string }).execution_id;
    await weft.waitFor(id, 'waiting');
    const page = await signIn(weft.keys.lead);
    await page.getByRole('link', { name: 'Approvals', exact: true }).click();
    const card = page.locator('.card').filter({ hasText: 'payout' });
    const inputs = card.getByRole('group', { name: 'Inputs of payout' });
    await poll(() => card.textContent()).toMatch(/amount\s*50000/);
    expect(await inputs.count()).toBeLessThanOrEqual(1);
    expect(await card.textContent()).toMatch(/to\s*initech/);
    expect(await card.textContent()).toMatch(/pin\s*\*\*\*/);
    expect(await page.content()).not.toContain(PIN);
    await checked(page, 'approvals-inputs');
    await card.getByRole('button', { name: 'Approve' }).click();
    const open = page.getByRole('link', { name: 'Open the run of payout' });
    await open.click();
    await poll(async () => page.url()).toContain(`/console/executions/${id}`);
    await page.getByRole('heading', { name: /payout/ }).waitFor();
    expect(await page.content()).not.toContain(PIN);
    await page.context().close();
  });

  it('filters by workflow, trigger and time in the address, survives a reload and pages', async () => {
    await fetch(`${weft.url}/workflows/quick`, {
      method: 'PUT',
      headers: { ...as(weft.keys.clerk), 'content-type': 'application/yaml' },
      body: 'name: quick\nsteps:\n  - { name: one, type: transform, input: { ok: true } }\n',
    });
    const ids: string[] = [];
    for (let i = 0; i < 45; i++) ids.push(await weft.start(QUICK));
    const manual = await fetch(`${weft.url}/workflows/quick/executions`, {
      method: 'POST',
      headers: as(weft.keys.clerk),
      body: JSON.stringify({ inputs: {} }),
    });
    expect(manual.status).toBeLessThan(300);
    const manualId = ((await manual.json()) as { execution_id: string }).execution_id;
    await weft.waitFor(ids.at(-1)!, 'completed');

    const page = await signIn(weft.keys.clerk);
    const rows = page.locator('tbody tr');
    await page.getByLabel('Workflow').fill('quick');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await poll(async () => new URL(page.url()).searchParams.get('workflow')).toBe('quick');
    await poll(() => rows.count()).toBe(20);
    await page.getByLabel('Trigger').selectOption('manual');
    await poll(() => rows.count()).toBe(1);
    expect(await rows.first().getAttribute('data-execution')).toBe(manualId);
    expect(await rows.first().textContent()).toContain('manual');
    expect(new URL(page.url()).searchParams.get('trigger')).toBe('manual');
    await checked(page, 'executions-filtered');

    await page.reload();
    await poll(() => rows.count()).toBe(1);
    expect(await page.getByLabel('Trigger').inputValue()).toBe('manual');
    expect(await page.getByLabel('Workflow').inputValue()).toBe('quick');

    // A time range in the future holds nothing; cleared, the api runs page 20, 20, 5 (+1 manual).
    await page.getByLabel('Trigger').selectOption('');
    await page.getByLabel('Created from').fill('2099-01-01T00:00:00');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.getByText('No executions.').waitFor();
    expect(new URL(page.url()).searchParams.get('from')).toMatch(/^2099-01-01T00:00/);
    await page.getByLabel('Created from').fill('');
    await page.getByLabel('Trigger').selectOption('api');
    await poll(() => rows.count()).toBe(20);
    const seen = new Set<string>();
    const collect = async () => {
      for (const id of await rows.evaluateAll((nodes) =>
        nodes.map(
          (node) => (node as unknown as { dataset: { execution: string } }).dataset.execution,
        ),
      ))
        seen.add(id);
    };
    await collect();
    /** Goes to the next or previous page: resolves once its rows replaced those shown. */
    const turn = async (button: 'Next page' | 'Previous page') => {
      const before = await rows.first().getAttribute('data-execution');
      await page.getByRole('button', { name: button }).click();
      await poll(() => rows.first().getAttribute('data-execution')).not.toBe(before);
    };
    await turn('Next page');
    expect(new URL(page.url()).searchParams.has('cursor')).toBe(true);
    expect(await rows.count()).toBe(20);
    await collect();
    await page.reload();
    await poll(() => rows.count()).toBe(20);
    await turn('Next page');
    expect(await rows.count()).toBe(5);
    await collect();
    expect(await page.getByRole('button', { name: 'Next page' }).count()).toBe(0);
    expect([...seen].sort()).toEqual([...ids].sort());
    await turn('Previous page');
    expect(await rows.count()).toBe(20);
    await checked(page, 'executions-paged');
    await page.getByRole('link', { name: 'quick' }).first().click();
    await page.getByRole('heading', { name: /quick/ }).waitFor();
    await page.screenshot({ path: `${SHOTS}execution.png`, fullPage: true });
    await page.context().close();
  });

  it('draws the overview: runs per hour by status, durations per workflow', async () => {
    await weft.waitFor(await weft.start(QUICK), 'completed');
    const page = await signIn(weft.keys.clerk);
    await page.getByRole('link', { name: 'Overview' }).click();
    const hours = page.getByRole('img', { name: /Executions per hour by status/ });
    await hours.waitFor();
    expect(await hours.getAttribute('aria-label')).toMatch(/\d+ completed/);
    expect(await hours.locator('rect[data-status="completed"]').count()).toBeGreaterThan(0);
    const durations = page.getByRole('img', { name: /Duration per workflow/ });
    expect(await durations.getAttribute('aria-label')).toContain('quick');
    await page.getByRole('cell', { name: 'quick' }).waitFor();
    await checked(page, 'overview');
    await page.context().close();
  });

  it('shows the deployed text, the triggers with zones and secret names, to every page', async () => {
    const deployed = await fetch(`${weft.url}/workflows/nightly`, {
      method: 'PUT',
      headers: { ...as(weft.keys.clerk), 'content-type': 'application/yaml' },
      body: NIGHTLY,
    });
    expect(deployed.status, await deployed.clone().text()).toBe(201);
    const page = await signIn(weft.keys.clerk);
    await page.getByRole('link', { name: 'Deployments' }).click();
    await page.getByRole('link', { name: 'nightly' }).waitFor();
    await checked(page, 'deployments-list');
    await page.getByRole('link', { name: 'nightly' }).click();
    const source = page.getByLabel('Workflow definition as deployed');
    await poll(() => source.textContent()).toContain('# The nightly report, deployed by hand.');
    const triggers = page.getByRole('list', { name: 'Triggers of nightly' });
    expect(await triggers.textContent()).toContain('secret named NIGHTLY_HOOK_TOKEN');
    expect(await source.textContent()).toContain('secret_name: NIGHTLY_HOOK_TOKEN');
    const fires = page.getByRole('list', { name: 'Next schedule fires of nightly' });
    // Written in the schedule's zone, with its name (CET or CEST, GMT+1/+2 by locale).
    await poll(() => fires.locator('time').first().textContent()).toMatch(/CES?T|GMT\+[12]/);
    expect(await page.content()).not.toContain('a-long-hook-token-value-123');
    await checked(page, 'deployment');
    const published = await fetch(`${weft.url}/plugins`, {
      method: 'POST',
      headers: as(weft.keys.clerk),
      body: JSON.stringify({
        slug: 'tides',
        version: '1.0.0',
        name: 'Tides',
        description: 'Tide tables of a harbour.',
        author: 'Acme Corp',
        homepage: 'https://example.com/tides',
        repository: 'https://github.com/acme/tides',
        icon: 'https://example.com/tides.svg',
        license: 'MIT',
        tags: ['tides'],
        actions: [
          {
            name: 'table',
            description: 'The tide table of a harbour',
            input_schema: { type: 'object', properties: { harbour: { type: 'string' } } },
          },
        ],
      }),
    });
    expect(published.status, await published.clone().text()).toBe(201);
    await page.getByRole('link', { name: 'Plugins' }).click();
    await page.getByRole('heading', { name: 'Plugins' }).waitFor();
    await page.getByRole('searchbox', { name: 'Search plugins' }).fill('tides');
    await page.keyboard.press('Enter');
    await page.getByRole('link', { name: 'Tides' }).waitFor();
    await checked(page, 'plugins');
    await page.getByRole('link', { name: 'Tides' }).click();
    await page.getByRole('heading', { name: 'Tides' }).waitFor();
    await poll(() => page.locator('.checksum').count()).toBe(1);
    await checked(page, 'plugin');
    await page.context().close();
  });

  it('shows Routes to an admin key only; a plain key is told it is forbidden', async () => {
    const page = await signIn(weft.keys.clerk);
    await page.getByRole('link', { name: 'Approvals' }).waitFor();
    await page.getByTestId('workspace').waitFor();
    expect(await page.getByRole('navigation', { name: 'Sections' }).textContent()).not.toContain(
      'Routes',
    );
    await page.goto(`${weft.url}/console/routes`);
    await poll(() => page.getByRole('alert').textContent()).toMatch(/FORBIDDEN/);
    await page.context().close();

    const admin = await signIn(weft.keys.admin);
    await admin.getByRole('link', { name: 'Routes' }).click();
    await admin.getByRole('heading', { name: 'Routes' }).waitFor();
    await poll(() => admin.locator('table').textContent()).toContain('gate-1');
    await checked(admin, 'routes');
    await admin.context().close();
  });
});
