import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The real weft server over loopback; test-only import.
import { createLocalKey, startServer, type RunningServer } from '@weft/server';
import { ApiError } from './api-error.js';
import { WeftClient } from './weft-client.js';

/** `charge` fails on its first call only. */
const ORDER = `workflows:
  - name: order
    steps:
      - { name: quote, plugin: shop, action: quote, input: {} }
      - { name: charge, plugin: shop, action: charge, input: {} }
    outputs:
      price: { value: '{{ steps.quote.output.price }}' }
`;

const dir = mkdtempSync(join(tmpdir(), 'weft-sdk-rerun-'));
const calls = { quote: 0, charge: 0 };
let server: RunningServer;
let shop: Server;
let client: WeftClient;

beforeAll(async () => {
  const dataDir = join(dir, 'data');
  server = await startServer({ port: 0, dataDir, logLevel: 'silent' }, { logger: false });
  const key = (await createLocalKey({ dataDir }, { name: 'ops', owner: 'acme' })).key;
  client = new WeftClient({ baseUrl: server.url, apiKey: key });
  shop = createServer((request, response) => {
    if (request.method === 'GET') return void response.end('{"status":"ok"}');
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      response.setHeader('content-type', 'application/json');
      if (body.includes('shop.quote')) {
        calls.quote++;
        return void response.end('{"status":"success","data":{"price":12}}');
      }
      if (calls.charge++ === 0) {
        response.statusCode = 400;
        return void response.end(
          '{"status":"error","code":"VALIDATION","message":"declined once","details":{}}',
        );
      }
      response.end('{"status":"success","data":{"ok":true}}');
    });
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  const registered = await fetch(`${server.url}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      plugin_slug: 'shop',
      version: '1.0.0',
      url: `http://127.0.0.1:${(shop.address() as AddressInfo).port}`,
      actions: ['quote', 'charge'],
    }),
  });
  expect(registered.status).toBe(201);
}, 30_000);

afterAll(async () => {
  await server?.close();
  shop?.closeAllConnections();
  await new Promise((resolve) => shop?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('WeftClient.rerunExecution', () => {
  it('resumes from the failed step with {from}; refuses an unknown step with VALIDATION', async () => {
    const failed = await client.startExecution({ workflow: ORDER, waitSeconds: 10 });
    expect(failed.status).toBe('failed');
    const unknown = await client.rerunExecution(failed.execution_id, { from: 'nope' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(unknown).toBeInstanceOf(ApiError);
    expect(unknown).toMatchObject({ code: 'VALIDATION', details: { field: 'from' } });
    const resumed = await client.rerunExecution(failed.execution_id, { from: 'failed' });
    expect(resumed.resumed_from).toEqual({ execution_id: failed.execution_id, step: 'charge' });
    const ended = await client.waitForExecution(resumed.execution_id);
    expect(ended).toMatchObject({ status: 'completed', result: { outputs: { price: 12 } } });
    expect(calls).toEqual({ quote: 1, charge: 2 });
  });

  it('still takes a bare abort signal, and reruns every step without from', async () => {
    const done = (await client.listExecutions({ status: 'completed', limit: 1 })).executions[0]!;
    const again = await client.rerunExecution(done.execution_id, new AbortController().signal);
    expect(again).not.toHaveProperty('resumed_from');
    expect(await client.waitForExecution(again.execution_id)).toMatchObject({
      status: 'completed',
    });
    expect(calls).toEqual({ quote: 2, charge: 3 });
  });
});
