import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestExecutionsStore, type TestExecutions } from '@weft/store';
import {
  buildRuntimeHarness,
  KEYS,
  testActions,
  workflowText,
  type RuntimeHarness,
} from '../test-support/harness.js';
import { signWebhook } from '@weft/sdk/callbacks';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

let store: TestExecutions;
let h: RuntimeHarness;
let receiver: Server;
let received: Received[];
let answers: { status: number; headers?: Record<string, string> }[];
let receiverUrl: string;

const WORKFLOW = workflowText(
  '      - { name: a, plugin: p, action: echo, input: { v: 1 } }\n',
  "    outputs: { v: { value: '{{ steps.a.output.v }}' } }\n",
);

beforeEach(async () => {
  store = await openTestExecutionsStore('memory');
  received = [];
  answers = [];
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      const answer = answers.shift() ?? { status: 200 };
      response.writeHead(answer.status, answer.headers).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  h = await buildRuntimeHarness(store.executions, testActions({ 'p.echo': (input) => input }), {
    egressAllowlist: ['127.0.0.1/32'],
    callbacks: { firstDelayMs: 20, maxAttempts: 4 },
  });
});

afterEach(async () => {
  await h.close();
  await new Promise((resolve) => receiver.close(resolve));
  await store.dispose();
});

async function run(callbackUrl: string): Promise<string> {
  const response = await h.app.inject({
    method: 'POST',
    url: '/workflows/executions',
    headers: { authorization: KEYS.alice },
    payload: { workflow: WORKFLOW, callback_url: callbackUrl },
  });
  expect(response.statusCode).toBe(202);
  return response.json().execution_id;
}

async function record(id: string) {
  return (
    await h.app.inject({
      method: 'GET',
      url: `/workflows/executions/${id}`,
      headers: { authorization: KEYS.alice },
    })
  ).json();
}

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('timed out');
}

describe('completion callbacks', () => {
  it('retries 5xx and 429 with the same webhook-id and a valid signature, and records attempts', async () => {
    answers = [{ status: 503 }, { status: 429, headers: { 'retry-after': '0' } }, { status: 204 }];
    const id = await run(receiverUrl);
    await until(async () => (await record(id)).callback?.status === 'delivered');
    expect(received).toHaveLength(3);
    const secret = (
      await h.app.inject({
        method: 'GET',
        url: '/workflows/callback-secret',
        headers: { authorization: KEYS.alice },
      })
    ).json();
    expect(secret).toMatchObject({ key_id: 'ka', scheme: 'standard-webhooks' });
    expect(secret.secret).toMatch(/^whsec_/);
    const ids = new Set(received.map((r) => r.headers['webhook-id']));
    expect(ids.size).toBe(1);
    for (const { headers, body } of received) {
      const expected = signWebhook(
        secret.secret,
        String(headers['webhook-id']),
        Number(headers['webhook-timestamp']),
        body,
      );
      expect(headers['webhook-signature']).toBe(expected['webhook-signature']);
      expect(Math.abs(Number(headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    }
    expect(JSON.parse(received[0]!.body)).toEqual({
      execution_id: id,
      status: 'completed',
      result: expect.objectContaining({ outputs: { v: 1 } }),
    });
    const final = await record(id);
    expect(final.callback).toMatchObject({
      url: receiverUrl,
      status: 'delivered',
      attempts: 3,
      last_status: 204,
      webhook_id: `msg_${id}`,
    });
    const attempts = await store.executions.callbackAttempts(id);
    expect(attempts.map((a) => a.status)).toEqual([503, 429, 204]);
  });

  it('never follows a redirect and gives up on a 4xx', async () => {
    answers = [{ status: 302, headers: { location: 'http://169.254.169.254/' } }];
    const id = await run(receiverUrl);
    await until(async () => (await record(id)).callback?.status === 'failed');
    expect(received).toHaveLength(1);
    expect((await record(id)).callback).toMatchObject({ attempts: 1, last_status: 302 });
  });

  it('stops after the last attempt on network errors', async () => {
    const closed = await new Promise<string>((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const port = (s.address() as AddressInfo).port;
        s.close(() => resolve(`http://127.0.0.1:${port}/gone`));
      });
    });
    const id = await run(closed);
    await until(async () => (await record(id)).callback?.status === 'failed');
    const final = await record(id);
    expect(final.callback).toMatchObject({ attempts: 4, last_status: null });
    expect(final.callback.last_error).toContain('ECONNREFUSED');
  });

  it('checks the resolved address again when it delivers', async () => {
    await h.close();
    let lookups = 0;
    h = await buildRuntimeHarness(store.executions, testActions({ 'p.echo': (input) => input }), {
      callbacks: { firstDelayMs: 10, maxAttempts: 2 },
      // Public at submission, loopback afterwards: a DNS rebinding attempt.
      lookup: async () => (lookups++ === 0 ? ['93.184.216.34'] : ['127.0.0.1']),
    });
    const id = await run(`http://rebind.example:${new URL(receiverUrl).port}/hook`);
    await until(async () => (await record(id)).callback?.status === 'failed');
    expect(received).toHaveLength(0);
    expect((await record(id)).callback.last_error).toContain('loopback');
  });
});
