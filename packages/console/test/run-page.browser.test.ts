import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import type { Browser, Page } from 'playwright-core';
import { createConnectorService, type ConnectorService } from '@weft/sdk/service';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { browserSuite, launchChromium, PageProblems, poll, SHOTS, skipBrowser } from './browser.js';
import { checked } from './quality.js';
import { LIVE, PAYOUT, startConsoleServer, type ConsoleServer } from './server.js';

const title = browserSuite('the run page in Chromium: graph, timeline, actions');
/** Screenshots CI keeps as artifacts (the repository ignores the folder). */
const ARTIFACTS = fileURLToPath(new URL('../../../test-results/screenshots/', import.meta.url));

/** Parallel branches, a condition, a for_each with continue_on_error, a subworkflow. */
const SHAPES = `workflows:
  - name: shapes
    inputs:
      cities: { type: array, default: [oslo, lima, pune] }
    steps:
      - { name: prepare, type: transform, input: { ok: true } }
      - name: fan
        parallel:
          - { name: left, plugin: gate, action: echo, input: { side: left } }
          - { name: right, type: transform, input: { side: right }, condition: '{{ steps.prepare.output.ok }}' }
      - name: each_city
        plugin: gate
        action: echo
        for_each: '{{ inputs.cities }}'
        input: { city: '{{ item }}' }
        continue_on_error: true
      - { name: billing, workflow: bill, input: { n: 3 } }
  - name: bill
    inputs:
      n: { type: number, required: true }
    steps:
      - { name: total, type: transform, input: { total: '{{ inputs.n }}' } }
    outputs:
      total: { value: '{{ steps.total.output.total }}' }
`;

/** A step that fails once and succeeds on its retry. */
const RETRYING = `workflows:
  - name: retrying
    steps:
      - { name: warm, type: transform, input: { ok: true } }
      - name: flaky
        plugin: tools
        action: flaky
        input: { key: '{{ inputs.key }}' }
        retry: { max_attempts: 3, backoff: fixed, backoff_factor: 0.05 }
    inputs:
      key: { type: string, required: true }
`;

/** A step that fails its first call (no retry), then succeeds: a run to retry from it. */
const ONCE = `workflows:
  - name: once
    inputs:
      key: { type: string, required: true }
    steps:
      - { name: quote, type: transform, input: { price: 12 } }
      - { name: charge, plugin: tools, action: flaky, input: { key: '{{ inputs.key }}' } }
`;

/** A step that reports its progress, then runs until the test lets it end. */
const REPORTING = `workflows:
  - name: reporting
    steps:
      - { name: crunch, plugin: tools, action: report, input: {} }
`;

const graphNode = (page: Page, path: string) =>
  page.getByRole('img', { name: /graph/ }).locator(`[data-step="${path}"]`);

let weft: ConsoleServer;
let finishReport: () => void = () => {};
let tools: ConnectorService;
let browser: Browser;
const problems = new PageProblems();
/** Keys the `tools.flaky` action has failed once for. */
const failedOnce = new Set<string>();

describe.skipIf(skipBrowser)(title, { timeout: 60_000 }, () => {
  beforeAll(async () => {
    weft = await startConsoleServer();
    tools = await createConnectorService({
      connector: {
        connector: { kind: 'function', name: 'tools', namespace: 't', version: '1.0.0' },
        actions: [{ name: 'flaky' }, { name: 'report' }],
      },
      handlers: {
        report: async (_input: unknown, context: { progress(p: number, m?: string): void }) => {
          context.progress(40, 'halfway there');
          await new Promise<void>((resolve) => (finishReport = resolve));
          return { crunched: true };
        },
        flaky: (input: { key?: string }) => {
          const key = input.key ?? '';
          if (!failedOnce.has(key)) {
            failedOnce.add(key);
            throw new Error(`flaky fails its first call for ${key}`);
          }
          return { ok: true };
        },
      },
      routerUrl: weft.url,
      instanceId: 'tools-1',
      handleSignals: false,
      logger: pino({ level: 'silent' }),
    });
    browser = await launchChromium();
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    finishReport();
    await browser?.close();
    await tools?.close();
    await weft?.close();
  });
  afterEach(() => expect(problems.unexpected()).toEqual([]));

  async function openRun(id: string): Promise<Page> {
    const page = await problems.newPage(browser);
    await page.goto(`${weft.url}/`);
    await page.getByLabel('API key').fill(weft.keys.clerk);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Executions' }).waitFor();
    await page.goto(`${weft.url}/console/executions/${id}`);
    return page;
  }

  async function startNamed(text: string, name: string, inputs = {}): Promise<string> {
    const answer = await fetch(`${weft.url}/workflows/executions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${weft.keys.clerk}`, 'content-type': 'application/json' },
      body: JSON.stringify({ workflow: text, workflow_name: name, inputs }),
    });
    expect(answer.status, await answer.clone().text()).toBe(202);
    return ((await answer.json()) as { execution_id: string }).execution_id;
  }

  it('draws the workflow as a graph: parallel side by side, for_each counted, subworkflow linked', async () => {
    const id = await startNamed(SHAPES, 'shapes');
    await weft.waitFor(id, 'completed');
    const page = await openRun(id);
    const graph = page.getByRole('img', { name: /graph/ });
    await graph.waitFor();
    const node = (path: string) => graph.locator(`[data-step="${path}"]`);
    for (const path of ['prepare', 'fan', 'fan/left', 'fan/right', 'each_city', 'billing']) {
      await poll(() => node(path).getAttribute('class')).toMatch(/node-success/);
    }
    expect(await node('fan/left').locator('text').first().textContent()).toBe('left');
    // Parallel branches side by side: one row, below their block.
    const box = async (path: string) => (await node(path).locator('rect').first().boundingBox())!;
    const [fan, left, right, each] = await Promise.all(
      ['fan', 'fan/left', 'fan/right', 'each_city'].map(box),
    );
    expect(left!.y).toBe(right!.y);
    expect(left!.x).not.toBe(right!.x);
    expect(left!.y).toBeGreaterThan(fan!.y);
    expect(each!.y).toBeGreaterThan(left!.y);
    await poll(() => node('each_city').textContent()).toMatch(/each_city ×3/);
    expect(await node('each_city').textContent()).toMatch(/continues on error/);
    expect(await node('fan/right').textContent()).toMatch(/\bif\b/);
    expect(await node('billing').textContent()).toMatch(/workflow bill/);
    await page.getByRole('link', { name: 'bill' }).waitFor();

    // A click shows the step's input and output.
    await node('fan/left').click();
    await poll(() => page.getByLabel('Step output of fan/left').textContent()).toMatch(
      /"side": "left"/,
    );
    expect(await page.getByLabel('Step input of fan/left').textContent()).toMatch(/"side"/);
    await page.screenshot({ path: `${SHOTS}run-graph.png`, fullPage: true });
    // The picture of docs/console.md (copied from here by hand): the graph and the timeline.
    const top = (await page.getByRole('heading', { name: 'Graph' }).boundingBox())!;
    const end = (await page.getByRole('img', { name: /timeline/ }).boundingBox())!;
    await page.screenshot({
      path: `${SHOTS}run-page.png`,
      fullPage: true,
      clip: { x: 0, y: top.y - 12, width: 1200, height: end.y + end.height - top.y + 24 },
    });
    await page.screenshot({ path: `${ARTIFACTS}run-graph.png`, fullPage: true });
    await checked(page, 'run-page');
    await page.context().close();
  });

  it('draws the run as a timeline: one bar per attempt of a retried step', async () => {
    const id = await startNamed(RETRYING, 'retrying', { key: 'timeline' });
    await weft.waitFor(id, 'completed');
    const page = await openRun(id);
    const timeline = page.getByRole('img', { name: /timeline/ });
    await timeline.waitFor();
    await poll(() => timeline.locator('rect[data-step="flaky"]').count()).toBe(2);
    expect(await timeline.locator('rect[data-step="warm"]').count()).toBe(1);
    const bars = timeline.locator('rect[data-step="flaky"]');
    expect(await bars.nth(0).getAttribute('class')).toMatch(/node-failed/);
    expect(await bars.nth(1).getAttribute('class')).toMatch(/node-success/);
    const [first, second] = [
      (await bars.nth(0).boundingBox())!,
      (await bars.nth(1).boundingBox())!,
    ];
    expect(second.x).toBeGreaterThanOrEqual(first.x + first.width);
    await page.getByRole('img', { name: /graph/ }).locator('[data-step="flaky"]').click();
    await poll(() => page.getByLabel('Attempts of flaky').textContent()).toMatch(
      /attempt 1.*BACKEND_ERROR.*attempt 2/s,
    );
    // The run's inputs, in its header.
    expect(await page.getByLabel('Inputs of retrying').textContent()).toMatch(/key\s*timeline/);
    await page.screenshot({ path: `${SHOTS}run-timeline.png`, fullPage: true });
    await page.screenshot({ path: `${ARTIFACTS}run-timeline.png`, fullPage: true });
    await page.context().close();
  });

  it('reruns an ended run and opens the new run', async () => {
    const id = await startNamed(SHAPES, 'shapes');
    await weft.waitFor(id, 'completed');
    const page = await openRun(id);
    await poll(() => page.getByTestId('execution-status').textContent()).toBe('completed');
    await page.getByRole('button', { name: 'Rerun' }).click();
    await page.waitForURL((url) => !url.pathname.endsWith(id));
    const next = page.url().split('/').pop()!;
    expect(next).not.toBe(id);
    await poll(() => page.getByTestId('execution-status').textContent()).toBe('completed');
    await page.context().close();
  });

  it('retries a failed run from its failed step, and the new run completes', async () => {
    const id = await startNamed(ONCE, 'once', { key: 'retry-from' });
    await weft.waitFor(id, 'failed');
    const page = await openRun(id);
    await poll(() => page.getByTestId('execution-status').textContent()).toBe('failed');
    await page.getByRole('button', { name: 'Retry from the failed step' }).click();
    await page.waitForURL((url) => !url.pathname.endsWith(id));
    const next = page.url().split('/').pop()!;
    await poll(() => page.getByTestId('execution-status').textContent()).toBe('completed');
    const record = (await (
      await fetch(`${weft.url}/workflows/executions/${next}`, {
        headers: { authorization: `Bearer ${weft.keys.clerk}` },
      })
    ).json()) as { resumed_from?: { execution_id: string; step: string } };
    expect(record.resumed_from).toEqual({ execution_id: id, step: 'charge' });
    await page.context().close();
  });

  it('asks before it cancels a running run; keeping it changes nothing', async () => {
    const id = await weft.start(LIVE, { gate: 'run-page-cancel' });
    await weft.waitFor(id, 'running');
    const page = await openRun(id);
    const status = page.getByTestId('execution-status');
    await poll(() => status.textContent()).toBe('running');
    // The running step's elapsed time ticks.
    const elapsed = page.getByTestId('elapsed');
    const before = await elapsed.textContent();
    await poll(() => elapsed.textContent()).not.toBe(before);
    await page.screenshot({ path: `${ARTIFACTS}run-running.png`, fullPage: true });

    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByText('Cancel this run?').waitFor();
    await page.getByRole('button', { name: 'Keep it running' }).click();
    expect(await page.getByText('Cancel this run?').count()).toBe(0);
    expect(await status.textContent()).toBe('running');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Yes, cancel the run' }).click();
    await poll(() => status.textContent()).toBe('canceled');
    await page.context().close();
  });

  it("shows a running step's elapsed time and its last progress, sent through the router", async () => {
    const id = await startNamed(REPORTING, 'reporting');
    await weft.waitFor(id, 'running');
    const page = await openRun(id);
    const step = page.locator('li[data-step="crunch"]');
    await poll(() => step.getByTestId('progress').textContent()).toMatch(/40% halfway there/);
    await poll(() => graphNode(page, 'crunch').textContent()).toMatch(/running · 40%/);
    const elapsed = step.getByTestId('elapsed');
    const before = await elapsed.textContent();
    await poll(() => elapsed.textContent()).not.toBe(before);
    const graph = page.getByRole('img', { name: /graph/ });
    await poll(() => graph.locator('[data-step="crunch"]').getAttribute('class')).toMatch(
      /node-running/,
    );
    await page.screenshot({ path: `${ARTIFACTS}run-progress.png`, fullPage: true });
    finishReport();
    await poll(() => page.getByTestId('execution-status').textContent()).toBe('completed');
    await poll(() => graph.locator('[data-step="crunch"]').getAttribute('class')).toMatch(
      /node-success/,
    );
    await page.context().close();
  });

  it('shows the wait for an approval on the timeline, and Approve / Reject to an approver', async () => {
    const id = await weft.start(PAYOUT, { amount: 50 });
    await weft.waitFor(id, 'waiting');
    // The clerk who started it is no approver: no Approve / Reject on the page.
    const clerk = await openRun(id);
    await clerk.getByText(/An approver decides it \(one of the roles lead\)/).waitFor();
    expect(await clerk.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await clerk.context().close();
    const page = await problems.newPage(browser);
    await page.goto(`${weft.url}/`);
    await page.getByLabel('API key').fill(weft.keys.lead);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Executions' }).waitFor();
    await page.goto(`${weft.url}/console/executions/${id}`);
    const timeline = page.getByRole('img', { name: /timeline/ });
    await poll(() => timeline.locator('rect[data-step="approval"]').count()).toBe(1);
    expect(await timeline.getAttribute('aria-label')).toMatch(/waiting for approval/);
    await page.getByRole('button', { name: 'Approve' }).click();
    await poll(() => page.getByTestId('execution-status').textContent()).toBe('completed');
    // Ended, the wait stays drawn: from the request to the start.
    await poll(() => timeline.locator('rect[data-step="approval"]').count()).toBe(1);
    await poll(() => timeline.locator('rect[data-step="pay"]').count()).toBe(1);
    await page.context().close();
  });

  it("draws a deployed workflow's graph on its deployment page", async () => {
    const deployed = await fetch(`${weft.url}/workflows/fanned`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${weft.keys.clerk}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'fanned',
        version: '1.0.0',
        steps: [
          { name: 'start', type: 'transform', input: { ok: true } },
          {
            name: 'both',
            parallel: [
              { name: 'one', type: 'transform', input: { n: 1 } },
              { name: 'two', type: 'transform', input: { n: 2 } },
            ],
          },
        ],
      }),
    });
    expect(deployed.status).toBe(201);
    const page = await problems.newPage(browser);
    await page.goto(`${weft.url}/`);
    await page.getByLabel('API key').fill(weft.keys.clerk);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Executions' }).waitFor();
    await page.goto(`${weft.url}/console/deployments/fanned`);
    const graph = page.getByRole('img', { name: /graph/ });
    for (const path of ['start', 'both', 'both/one', 'both/two']) {
      await graph.locator(`[data-step="${path}"]`).waitFor();
    }
    expect(await graph.getAttribute('aria-label')).toMatch(/start, both, one, two/);
    await page.screenshot({ path: `${ARTIFACTS}deployment-graph.png`, fullPage: true });
    await page.context().close();
  });
});
