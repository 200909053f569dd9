import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModelServer } from '@weft/agents/testing';
import { browserSuite, launchChromium, PageProblems, poll, SHOTS, skipBrowser } from './browser.js';
import { startConsoleServer, type ConsoleServer } from './server.js';

const title = browserSuite('a tool call waiting for approval in the console');

/** The workflow: an agent step whose `payments_pay` tool needs the approval of `lead`. */
const REFUND = `workflows:
  - name: refund
    steps:
      - { name: pay, type: agent, agent: 'agent:acme/payer@^1', input: { prompt: Refund 120 } }
`;

let weft: ConsoleServer;
let browser: Browser;
let model: ScriptedModelServer;
let service: Server;
let dir: string;
const paid: unknown[] = [];
const problems = new PageProblems();

describe.skipIf(skipBrowser)(title, { timeout: 60_000 }, () => {
  beforeAll(async () => {
    model = await new ScriptedModelServer((body) => {
      const messages = body['messages'] as { role: string }[];
      return messages.at(-1)!.role === 'tool'
        ? { text: 'Refunded.' }
        : { toolCalls: [{ name: 'payments_pay', arguments: '{"amount":120,"to":"initech"}' }] };
    }).start();
    service = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        paid.push(JSON.parse(body));
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"paid":true}');
      });
    });
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    dir = mkdtempSync(join(tmpdir(), 'weft-console-tool-'));
    writeFileSync(
      join(dir, 'payer.yaml'),
      `agent:
  namespace: acme
  name: payer
  version: 1.0.0
  model: openai-compatible:scripted
  base_url: ${model.url}
  tools:
    - { plugin: payments, action: pay, approval: { approvers: [lead], timeout: 600 } }
`,
    );
    weft = await startConsoleServer({ agentsDir: dir, egressAllowlist: ['127.0.0.0/8'] });
    const published = await fetch(`${weft.url}/plugins`, {
      method: 'POST',
      headers: { authorization: `Bearer ${weft.keys.clerk}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        slug: 'payments',
        version: '1.0.0',
        name: 'Payments',
        description: 'Pays.',
        author: 'Acme Corp',
        homepage: 'https://example.com/payments',
        repository: 'https://github.com/acme/payments',
        license: 'MIT',
        tags: ['payments'],
        icon: 'https://example.com/payments.svg',
        connector: {
          kind: 'http',
          name: 'payments',
          namespace: 'acme',
          version: '1.0.0',
          base_url: `http://127.0.0.1:${(service.address() as AddressInfo).port}`,
        },
        actions: [
          {
            name: 'pay',
            description: 'Pays someone',
            input_schema: {
              type: 'object',
              properties: { amount: { type: 'number', maximum: 500 }, to: { type: 'string' } },
              required: ['amount', 'to'],
            },
            output_schema: { type: 'object' },
            request: { method: 'POST', url: '/pay', body: '{{ inputs }}' },
          },
        ],
      }),
    });
    expect(published.status).toBe(201);
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await weft?.close();
    await model?.close();
    service?.closeAllConnections();
    service?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  afterEach(() => expect(problems.unexpected()).toEqual([]));

  it('shows the tool and its arguments; a bad edit is refused, a good one runs', async () => {
    const id = await weft.start(REFUND);
    await weft.waitFor(id, 'waiting');
    const page = await problems.newPage(browser);
    await page.goto(`${weft.url}/`);
    await page.getByLabel('API key').fill(weft.keys.lead);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Approvals' }).click();
    const card = page.getByRole('listitem').filter({ hasText: 'refund' });
    await poll(() => card.textContent()).toMatch(
      /Agent step pay wants to call the tool payments_pay/,
    );
    const args = card.getByLabel('Arguments of payments_pay (edit to change)');
    expect(JSON.parse(await args.inputValue())).toEqual({ amount: 120, to: 'initech' });
    await page.screenshot({ path: `${SHOTS}tool-approval.png`, fullPage: true });

    problems.expected = [/status of 400/];
    await args.fill('{"amount": 9000, "to": "initech"}');
    await card.getByRole('button', { name: 'Approve' }).click();
    await poll(() => card.getByRole('alert').textContent()).toMatch(/VALIDATION/);
    expect(paid).toEqual([]);

    await args.fill('{"amount": 100, "to": "initech"}');
    await card.getByRole('button', { name: 'Approve' }).click();
    await poll(() => page.getByRole('status').first().textContent()).toMatch(/refund: approved/);
    await weft.waitFor(id, 'completed');
    expect(paid).toEqual([{ amount: 100, to: 'initech' }]);
    await page.context().close();
  });
});
