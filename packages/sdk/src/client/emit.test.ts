import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The real weft server, over loopback; test-only import.
import { createLocalKey, startServer, type RunningServer } from '@weft/server';
import { Weft } from './weft.js';

const listener = {
  name: 'on-order',
  triggers: [{ type: 'event', source: 'custom', topic: 'orders.created', filter: { kind: 'big' } }],
  steps: [{ name: 't', type: 'transform', input: { id: '{{ trigger.event.id }}' } }],
};

describe('weft.emit against a weft server over loopback', () => {
  const dir = mkdtempSync(join(tmpdir(), 'weft-sdk-emit-'));
  let server: RunningServer;
  let apiKey: string;
  const clients: Weft[] = [];
  const client = (options: ConstructorParameters<typeof Weft>[0] = {}) => {
    const weft = new Weft({ logLevel: 'silent', inheritEnvironment: false, ...options });
    clients.push(weft);
    return weft;
  };

  beforeAll(async () => {
    server = await startServer({ port: 0, host: '127.0.0.1', dataDir: dir, logLevel: 'error' });
    apiKey = (await createLocalKey({ dataDir: dir }, { name: 'sdk' })).key;
    const deployed = await fetch(`${server.url}/workflows/on-order`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(listener),
    });
    expect(deployed.status).toBe(201);
  }, 30_000);

  afterAll(async () => {
    for (const weft of clients) await weft.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts the workflows listening to the topic and answers what the server started', async () => {
    const weft = client({ executionMode: 'cloud', cloudUrl: server.url, apiKey });
    const answer = await weft.emit('orders.created', { id: 7, kind: 'big' });
    expect(answer).toMatchObject({ status: 'accepted', topic: 'orders.created' });
    expect(answer.started).toHaveLength(1);
    expect(answer.started[0]).toMatchObject({ workflow: 'on-order' });
    const record = await weft.wait(answer.started[0]!.execution_id, {
      timeoutMs: 10_000,
      intervalMs: 50,
    });
    expect(record).toMatchObject({ status: 'completed', workflow: 'on-order' });
  });

  it('answers no execution for an event the filter drops or a topic nobody listens to', async () => {
    const weft = client({ executionMode: 'hybrid', cloudUrl: server.url, apiKey });
    expect((await weft.emit('orders.created', { id: 8, kind: 'small' })).started).toEqual([]);
    expect((await weft.emit('nobody.listens', { id: 9 })).started).toEqual([]);
  });

  it('refuses an empty or overlong topic with VALIDATION before any request', async () => {
    const weft = client({ cloudUrl: 'http://127.0.0.1:1', apiKey });
    for (const topic of ['', 'x'.repeat(513)]) {
      await expect(weft.emit(topic, {})).rejects.toMatchObject({
        code: 'VALIDATION',
        details: { field: 'topic' },
      });
    }
  });

  it('says emit needs a server when the client has none', async () => {
    await expect(client().emit('orders.created', {})).rejects.toMatchObject({
      code: 'VALIDATION',
      message: expect.stringContaining('emit (events are delivered by a weft server) needs'),
    });
  });

  it('refuses a wrong API key with the server’s UNAUTHORIZED', async () => {
    const weft = client({ executionMode: 'cloud', cloudUrl: server.url, apiKey: 'weft_wrong' });
    await expect(weft.emit('orders.created', { kind: 'big' })).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
  });
});
