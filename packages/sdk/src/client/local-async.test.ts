import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import type { ExecutionRecord } from '@weft/core';
import type { ExecutionEvent } from '../http-client/event-stream.js';
import { Weft } from './weft.js';
import type { WeftOptions } from './options.js';

const flows = (() => {
  const path = join(mkdtempSync(join(tmpdir(), 'weft-async-')), 'flows.yaml');
  writeFileSync(
    path,
    `workflows:
  - name: double
    version: 1.2.0
    inputs: { n: { type: number, required: true } }
    steps:
      - { name: calc, plugin: math, action: double, input: { n: '{{ inputs.n }}' } }
    outputs: { v: { value: '{{ steps.calc.output.v }}' } }
  - name: hang
    steps:
      - { name: wait, plugin: math, action: hang }
  - name: broken
    steps:
      - { name: boom, plugin: math, action: boom }
`,
  );
  return path;
})();

/** A client with the math handlers; `hang` waits for its abort signal and tells when it began. */
async function client(options: WeftOptions = {}) {
  let hanging: () => void = () => undefined;
  const hangStarted = new Promise<void>((resolve) => (hanging = resolve));
  const calls: number[] = [];
  const weft = new Weft({
    logLevel: 'silent',
    inheritEnvironment: false,
    ...options,
  })
    .registerHandler('math.double', (input: { n: number }) => {
      calls.push(input.n);
      return { v: input.n * 2 };
    })
    .registerHandler('math.hang', (_input, context) => {
      hanging();
      return new Promise((_resolve, reject) =>
        context.signal.addEventListener('abort', () => reject(new Error('stopped'))),
      );
    })
    .registerHandler('math.boom', () => {
      throw new Error('no luck');
    });
  await weft.loadWorkflows(flows);
  clients.push(weft);
  return { weft, calls, hangStarted };
}

const clients: Weft[] = [];
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((weft) => weft.close()));
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A loopback receiver answering each callback with the next status of `answers` (then 200). */
async function receiver(answers: number[] = []) {
  const received: Received[] = [];
  const waiters: Array<() => void> = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      const status = answers.shift() ?? 200;
      // Retry-After: 0 lets the retry go at once (the receiver's wish wins over the backoff).
      response.writeHead(status, status >= 500 ? { 'retry-after': '0' } : {}).end();
      waiters.splice(0).forEach((wake) => wake());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  const count = async (n: number): Promise<Received[]> => {
    while (received.length < n) await new Promise<void>((wake) => waiters.push(wake));
    return received;
  };
  return { url, count };
}

/** Polls the record until `done` says so (no timing: each poll waits for the next macrotask). */
async function pollUntil(
  weft: Weft,
  id: string,
  done: (record: ExecutionRecord) => boolean,
): Promise<ExecutionRecord> {
  for (;;) {
    const record = await weft.getExecution(id);
    if (done(record)) return record;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const ended = (record: ExecutionRecord) =>
  ['completed', 'failed', 'canceled'].includes(record.status);

describe('executeAsync without a server', () => {
  it('answers at once with the pending record, and polling it reaches completed', async () => {
    const { weft } = await client();
    const pending = await weft.executeAsync('double', { n: 21 });
    expect(pending).toMatchObject({
      status: 'pending',
      workflow: 'double',
      workflow_version: '1.2.0',
      mode: 'local',
      trigger: 'api',
      started_at: null,
      finished_at: null,
      poll_url: `/workflows/executions/${pending.execution_id}`,
    });
    const done = await pollUntil(weft, pending.execution_id, ended);
    expect(done.status).toBe('completed');
    expect(done.result?.outputs).toEqual({ v: 42 });
    expect(done.result?.steps).toMatchObject({ calc: { status: 'success' } });
  });

  it('wait gives the ended record of a completed and of a failed run', async () => {
    const { weft } = await client();
    const ok = await weft.executeAsync('double', { n: 2 });
    const bad = await weft.executeAsync('broken');
    expect(await weft.wait(ok.execution_id)).toMatchObject({
      status: 'completed',
      result: { outputs: { v: 4 } },
    });
    const failed = await weft.wait(bad.execution_id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatchObject({
      status: 'error',
      message: expect.stringContaining('no luck'),
    });
  });

  it('streams the events of a run, those emitted before subscribing included', async () => {
    const { weft } = await client();
    const { execution_id: id } = await weft.executeAsync('double', { n: 5 });
    await weft.wait(id);
    const events: ExecutionEvent[] = [];
    for await (const event of weft.stream(id)) events.push(event);
    expect(events.map((e) => e.type)).toEqual([
      'step.started',
      'step.completed',
      'workflow.completed',
    ]);
    expect(events.map((e) => e.id)).toEqual(['1', '2', '3']);
    const after: string[] = [];
    for await (const event of weft.stream(id, { lastEventId: '2' })) after.push(event.type);
    expect(after).toEqual(['workflow.completed']);
  });

  it('follows a live run until it ends', async () => {
    const { weft, hangStarted } = await client();
    const { execution_id: id } = await weft.executeAsync('hang');
    const types: string[] = [];
    const following = (async () => {
      for await (const event of weft.stream(id)) types.push(event.type);
    })();
    await hangStarted;
    await weft.cancel(id);
    await following;
    expect(types[0]).toBe('step.started');
    expect(types.at(-1)).toBe('workflow.completed');
  });

  it('cancels a running run: its step gets the signal and it ends canceled', async () => {
    const { weft, hangStarted } = await client();
    const { execution_id: id } = await weft.executeAsync('hang');
    await hangStarted;
    expect((await weft.getExecution(id)).status).toBe('running');
    const canceled = await weft.cancel(id);
    expect(canceled.status).toBe('canceled');
    expect(canceled.error).toMatchObject({ code: 'CANCELED' });
    expect((await weft.wait(id)).status).toBe('canceled');
    expect((await weft.cancel(id)).status).toBe('canceled');
    const { execution_id: done } = await weft.executeAsync('double', { n: 1 });
    await weft.wait(done);
    await expect(weft.cancel(done)).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it('returns the same execution for the same idempotency key, without a second run', async () => {
    const { weft, calls } = await client();
    const first = await weft.executeAsync('double', { n: 3 }, { idempotencyKey: 'order-7' });
    const again = await weft.executeAsync('double', { n: 3 }, { idempotencyKey: 'order-7' });
    expect(again.execution_id).toBe(first.execution_id);
    await weft.wait(first.execution_id);
    const replay = await weft.executeAsync('double', { n: 3 }, { idempotencyKey: 'order-7' });
    expect(replay).toMatchObject({ execution_id: first.execution_id, status: 'completed' });
    expect(calls).toEqual([3]);
    await expect(
      weft.executeAsync('double', { n: 4 }, { idempotencyKey: 'order-7' }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it('refuses inputs the workflow does not accept before starting anything, as the server does', async () => {
    const { weft, calls } = await client();
    await expect(weft.executeAsync('double', { n: 'many' })).rejects.toMatchObject({
      code: 'VALIDATION',
      details: { field: 'inputs.n' },
    });
    await expect(weft.executeAsync('double', {})).rejects.toMatchObject({
      code: 'VALIDATION',
      details: { field: 'inputs.n', constraint: 'required' },
    });
    await expect(
      weft.executeAsync('double', { n: 1, m: 2 }, { idempotencyKey: 'k' }),
    ).rejects.toMatchObject({ code: 'VALIDATION', details: { constraint: 'unknown' } });
    // A refused request keeps nothing: the key is still free for a good one.
    const started = await weft.executeAsync('double', { n: 1 }, { idempotencyKey: 'k' });
    expect((await weft.wait(started.execution_id)).status).toBe('completed');
    expect(calls).toEqual([1]);
  });

  it('POSTs the signed callback, retried after a 500, and shows its delivery on the record', async () => {
    const hooks = await receiver([500]);
    const secret = 'whsec_' + Buffer.from('a local callback secret!').toString('base64');
    const { weft } = await client({ callbackSecret: secret });
    expect(weft.callbackSecret()).toBe(secret);
    const { execution_id: id } = await weft.executeAsync(
      'double',
      { n: 8 },
      { callbackUrl: hooks.url },
    );
    const [first, second] = await hooks.count(2);
    // Verified as a receiver verifies it, with the Standard Webhooks library.
    const verified = new Webhook(secret).verify(
      second!.body,
      second!.headers as Record<string, string>,
    );
    expect(verified).toMatchObject({
      execution_id: id,
      status: 'completed',
      result: { outputs: { v: 16 } },
    });
    expect(first!.headers['webhook-id']).toBe(second!.headers['webhook-id']);
    expect(() =>
      new Webhook(`whsec_${Buffer.from('another').toString('base64')}`).verify(
        second!.body,
        second!.headers as Record<string, string>,
      ),
    ).toThrow();
    const record = await pollUntil(weft, id, (r) => r.callback?.status !== 'pending');
    expect(record.callback).toMatchObject({
      url: hooks.url,
      status: 'delivered',
      attempts: 2,
      last_status: 200,
      webhook_id: `msg_${id}`,
    });
  });

  it('close() cancels the runs still going and their callbacks say canceled', async () => {
    const hooks = await receiver();
    const { weft, hangStarted } = await client();
    const { execution_id: id } = await weft.executeAsync('hang', {}, { callbackUrl: hooks.url });
    await hangStarted;
    await weft.close();
    expect((await weft.getExecution(id)).status).toBe('canceled');
    const [hook] = await hooks.count(1);
    const body = new Webhook(weft.callbackSecret()).verify(
      hook!.body,
      hook!.headers as Record<string, string>,
    );
    expect(body).toMatchObject({
      execution_id: id,
      status: 'canceled',
      error: { code: 'CANCELED' },
    });
  });

  it('runs here in hybrid mode too, with the locally registered handlers', async () => {
    const { weft } = await client({
      executionMode: 'hybrid',
      cloudUrl: 'http://127.0.0.1:9',
      apiKey: 'unused',
    });
    const { execution_id: id, mode } = await weft.executeAsync('double', { n: 10 });
    expect(mode).toBe('hybrid');
    expect(await weft.wait(id)).toMatchObject({
      status: 'completed',
      result: { outputs: { v: 20 } },
    });
  });
});
