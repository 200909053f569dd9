/**
 * Takes docs/agents.md's picture of a tool call waiting for approval in the web console
 * (docs/images/console-tool-approval.png): a `weft server` in a temporary folder with an agent
 * whose `payments_pay` tool needs approval, a scripted OpenAI-compatible model on loopback that
 * asks to pay, and a payments service on loopback; it starts a run as `clerk`, then signs in as
 * the approver `bob` and photographs the approvals page in Debian's Chromium (playwright-core).
 *
 *   npx tsx --conditions=source scripts/tool-approval-screenshot.ts [out.png]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { ScriptedModelServer } from '@weft/agents/testing';
import { createLocalKey, startServer } from '@weft/server';

const target =
  process.argv[2] ??
  fileURLToPath(new URL('../docs/images/console-tool-approval.png', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'weft-tool-approval-shot-'));
const dataDir = join(dir, 'data');
const model = await new ScriptedModelServer(() => ({
  toolCalls: [
    {
      name: 'payments_pay',
      arguments:
        '{"amount":120,"currency":"EUR","to":"DE89 3704 0044 0532 0130 00","memo":"refund #4711"}',
    },
  ],
})).start();
const service = createServer((_, response) => response.end('{"paid":true}'));
await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
mkdirSync(join(dir, 'agents'));
writeFileSync(
  join(dir, 'agents', 'payer.yaml'),
  `agent:
  namespace: acme
  name: payer
  version: 1.0.0
  model: openai-compatible:gpt-4o-mini
  base_url: ${model.url}
  tools:
    - { plugin: payments, action: pay, approval: { approvers: [finance], timeout: 3600 } }
`,
);
const key = async (name: string, roles: string[]) =>
  (await createLocalKey({ dataDir }, { name, owner: 'acme', roles })).key;
const clerk = await key('clerk', ['support']);
const bob = await key('bob', ['finance']);
const server = await startServer(
  {
    port: 0,
    dataDir,
    logLevel: 'silent',
    agentsDir: join(dir, 'agents'),
    egressAllowlist: ['127.0.0.0/8'],
  },
  { logger: false },
);
const browser = await chromium.launch({
  executablePath: process.env['WEFT_CHROMIUM'] ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update'],
});
try {
  const headers = { authorization: `Bearer ${clerk}`, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown) => {
    const answer = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });
    if (answer.status >= 300) throw new Error(`${path}: ${answer.status} ${await answer.text()}`);
    return (await answer.json()) as Record<string, unknown>;
  };
  await post('/plugins', {
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
          properties: {
            amount: { type: 'number' },
            currency: { type: 'string' },
            to: { type: 'string' },
            memo: { type: 'string' },
          },
          required: ['amount', 'to'],
        },
        output_schema: { type: 'object' },
        request: { method: 'POST', url: '/pay', body: '{{ inputs }}' },
      },
    ],
  });
  const started = await post('/workflows/executions', {
    workflow: {
      name: 'refund',
      steps: [
        {
          name: 'refund',
          type: 'agent',
          agent: 'agent:acme/payer@^1',
          input: { prompt: 'Refund order 4711 to the customer.' },
        },
      ],
    },
  });
  const id = String(started['execution_id']);
  for (let i = 0; ; i++) {
    const answer = await fetch(`${server.url}/workflows/executions/${id}`, { headers });
    if (((await answer.json()) as { status: string }).status === 'waiting') break;
    if (i > 500) throw new Error('the run never waited');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const page = await browser.newPage({ viewport: { width: 1200, height: 860 } });
  await page.goto(`${server.url}/console`);
  await page.getByLabel('API key').fill(bob);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: 'Approvals' }).click();
  await page.getByLabel('Arguments of payments_pay (edit to change)').waitFor();
  await page.screenshot({ path: target, fullPage: true });
  console.log(`wrote ${target}`);
} finally {
  await browser.close();
  await server.close();
  await model.close();
  service.close();
  rmSync(dir, { recursive: true, force: true });
}
