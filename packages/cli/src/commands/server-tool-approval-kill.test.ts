import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModelServer } from '@weft/agents/testing';
import { createLocalKey } from '@weft/server';
import { run } from '../test-support.js';

/**
 * A run waiting for a tool call's approval survives `kill -9` of `weft server`: started again on
 * the same data directory, an approver approves, the tool runs once and the run completes,
 * without the model being asked again for the turn it answered before the kill.
 */
const weft = fileURLToPath(new URL('../../bin/weft.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'weft-tool-approval-kill-'));
const dataDir = join(dir, 'data');
let model: ScriptedModelServer;
let service: Server;
const paid: unknown[] = [];
const children: ChildProcess[] = [];

beforeAll(async () => {
  model = await new ScriptedModelServer((body) => {
    const messages = body['messages'] as { role: string; content: unknown }[];
    const last = messages.at(-1)!;
    return last.role === 'tool'
      ? { text: `tool said: ${String(last.content)}` }
      : { toolCalls: [{ name: 'payments_pay', arguments: '{"amount":10}' }] };
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
  mkdirSync(join(dir, 'agents'));
  writeFileSync(
    join(dir, 'agents', 'payer.yaml'),
    `agent:
  namespace: acme
  name: payer
  version: 1.0.0
  model: openai-compatible:scripted
  base_url: ${model.url}
  tools:
    - { plugin: payments, action: pay, approval: { approvers: [finance], timeout: 600 } }
`,
  );
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await model.close();
  service.closeAllConnections();
  await new Promise<void>((resolve) => service.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

/** Starts `weft server` on the data directory; resolves with its URL. */
async function startServer(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [weft, 'server', '--port', '0', '--data-dir', dataDir, '--agents', join(dir, 'agents')],
    {
      env: { ...process.env, WEFT_EGRESS_ALLOWLIST: '127.0.0.0/8', WEFT_LOG_FORMAT: 'json' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let out = '';
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`weft server exited (${code}): ${out}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /listening on (http:\/\/\S+)/.exec(out);
      if (found) resolve(found[1]!);
    });
  });
  return { child, url };
}

async function call(url: string, key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function settled(url: string, key: string, id: string) {
  for (let i = 0; i < 1000; i++) {
    const { body } = await call(url, key, 'GET', `/workflows/executions/${id}`);
    if (!['pending', 'running'].includes(body['status'] as string)) return body;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`execution ${id} did not settle`);
}

describe('weft server killed while a tool call waits for approval', { timeout: 120_000 }, () => {
  it('keeps the wait; approved after a restart, the tool runs once and the run completes', async () => {
    const alice = (await createLocalKey({ dataDir }, { name: 'alice', owner: 'acme' })).key;
    const bob = (
      await createLocalKey({ dataDir }, { name: 'bob', owner: 'acme', roles: ['finance'] })
    ).key;
    const first = await startServer();
    const port = (service.address() as AddressInfo).port;
    const published = await call(first.url, alice, 'POST', '/plugins', {
      slug: 'payments',
      version: '1.0.0',
      name: 'Payments',
      description: 'Pays.',
      author: 'Acme Corp',
      homepage: 'https://example.com/payments',
      repository: 'https://github.com/acme/payments',
      license: 'MIT',
      tags: ['test'],
      icon: 'https://example.com/payments.svg',
      connector: {
        kind: 'http',
        name: 'payments',
        namespace: 'acme',
        version: '1.0.0',
        base_url: `http://127.0.0.1:${port}`,
      },
      actions: [
        {
          name: 'pay',
          description: 'Pays someone',
          input_schema: {
            type: 'object',
            properties: { amount: { type: 'number' } },
            required: ['amount'],
          },
          output_schema: { type: 'object' },
          request: { method: 'POST', url: '/pay', body: '{{ inputs }}' },
        },
      ],
    });
    expect(published.status, JSON.stringify(published.body)).toBe(201);
    const started = await call(first.url, alice, 'POST', '/workflows/executions', {
      workflow: {
        name: 'payout',
        steps: [
          { name: 'pay', type: 'agent', agent: 'agent:acme/payer@^1', input: { prompt: 'Pay' } },
        ],
      },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const id = started.body['execution_id'] as string;
    const waiting = await settled(first.url, alice, id);
    expect(waiting).toMatchObject({ status: 'waiting', waiting_for: { kind: 'tool_call' } });
    expect(model.requests).toHaveLength(1);

    const killed = new Promise((resolve) => first.child.on('exit', resolve));
    first.child.kill('SIGKILL');
    await killed;

    const second = await startServer();
    const still = await call(second.url, alice, 'GET', `/workflows/executions/${id}`);
    expect(still.body).toMatchObject({
      status: 'waiting',
      waiting_for: { kind: 'tool_call', tool: 'payments_pay', arguments: { amount: 10 } },
    });
    // The approver's inbox and the run's record show the tool and its arguments.
    const listed = await run('approvals', 'list', '--server', second.url, '--api-key', bob);
    expect(listed.out).toMatch(
      new RegExp(`${id}\\s+payout\\s+pay: payments_pay \\{"amount":10\\}`),
    );
    const got = await run('execution', 'get', id, '--server', second.url, '--api-key', alice);
    expect(got.out).toContain('tool call pay: payments_pay {"amount":10} (approvers: finance;');
    const approved = await call(second.url, bob, 'POST', `/workflows/executions/${id}/approve`, {});
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    const done = await settled(second.url, alice, id);
    expect(done['status'], JSON.stringify(done)).toBe('completed');
    expect(paid).toEqual([{ amount: 10 }]);
    // The turn answered before the kill was replayed from the journal, not asked again.
    expect(model.requests).toHaveLength(2);
    second.child.kill('SIGTERM');
  });
});
