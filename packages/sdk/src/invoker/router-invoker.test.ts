import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Weft } from '../client/weft.js';
import { makeContext } from '../test-support/context.js';
import { RouterInvoker } from './router-invoker.js';

let server: Server;
let url: string;
let answer: { status: number; body: string; delayMs?: number };
const received: { body: unknown; headers: IncomingHttpHeaders; url: string }[] = [];

beforeEach(async () => {
  received.length = 0;
  answer = { status: 200, body: JSON.stringify({ status: 'success', data: { ok: true } }) };
  server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      received.push({ body: JSON.parse(text), headers: req.headers, url: req.url! });
      setTimeout(() => {
        res.statusCode = answer.status;
        res.end(answer.body);
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const call = (
  invoker: RouterInvoker,
  extra: Partial<Parameters<RouterInvoker['invoke']>[0]> = {},
) =>
  invoker
    .invoke({
      target: { kind: 'plugin', slug: 'slack' },
      action: 'send',
      input: { text: 'hi' },
      context: makeContext({ idempotencyKey: 'exec-9/notify' }),
      ...extra,
    })
    .then((result) => result.output);

describe('RouterInvoker (self_hosted mode)', () => {
  it('posts {action, input} to the router with the idempotency key and returns data', async () => {
    const invoker = new RouterInvoker({ routerUrl: `${url}/` });
    expect(await call(invoker)).toEqual({ ok: true });
    expect(received[0]).toMatchObject({
      url: '/execute',
      body: { action: 'slack.send', input: { text: 'hi' } },
      headers: { 'idempotency-key': 'exec-9/notify', 'content-type': 'application/json' },
    });
    await call(invoker, { target: { kind: 'connector', ref: 'connector:acme/mailer@1.0.0' } });
    expect(received[1]!.body).toMatchObject({ action: 'mailer.send' });
    await invoker.close();
  });

  it("adds the step's runtime to the body only when the call has one", async () => {
    const invoker = new RouterInvoker({ routerUrl: url });
    const runtime = { resources: { memory: '64MB', timeout: 5 } };
    await call(invoker, { runtime });
    await call(invoker);
    expect(received[0]!.body).toEqual({ action: 'slack.send', input: { text: 'hi' }, runtime });
    expect(received[1]!.body).toEqual({ action: 'slack.send', input: { text: 'hi' } });
    await invoker.close();
  });

  it('turns the router error object into the error of that code', async () => {
    answer = {
      status: 503,
      body: JSON.stringify({
        status: 'error',
        code: 'UNAVAILABLE',
        message: 'no instance',
        details: { backend: 'slack', suggestion: 'start one' },
      }),
    };
    const invoker = new RouterInvoker({ routerUrl: url });
    await expect(call(invoker)).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      details: { backend: 'slack' },
    });
    answer = { status: 502, body: '<html>' };
    await expect(call(invoker)).rejects.toMatchObject({
      code: 'BACKEND_ERROR',
      message: expect.stringMatching(/not JSON/),
    });
    await invoker.close();
  });

  it('answers UNAVAILABLE when the router cannot be reached, and CANCELED when aborted', async () => {
    const closed = new RouterInvoker({ routerUrl: 'http://127.0.0.1:1' });
    await expect(call(closed)).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      details: { backend: 'router' },
    });
    const invoker = new RouterInvoker({ routerUrl: url });
    answer.delayMs = 500;
    const controller = new AbortController();
    const pending = call(invoker, { context: makeContext({ signal: controller.signal }) });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ code: 'CANCELED' });
    await invoker.close();
  });

  it('is what a Weft client in self_hosted mode uses; the mode needs a routerUrl', async () => {
    // @ts-expect-error self_hosted needs routerUrl: a JavaScript caller learns it at run time
    expect(() => new Weft({ executionMode: 'self_hosted' })).toThrow(
      expect.objectContaining({
        code: 'VALIDATION',
        details: { field: 'routerUrl', constraint: 'url' },
      }),
    );
    expect(() => new Weft({ executionMode: 'self_hosted', routerUrl: 'ftp://x' })).toThrow(
      /routerUrl/,
    );
    const weft = new Weft({ executionMode: 'self_hosted', routerUrl: url, logLevel: 'silent' });
    expect(weft.router?.routerUrl).toBe(url);
    await weft.close();
  });

  it('sends its credential as a bearer token: routerCredential, else apiKey, else none', async () => {
    const sent = async (options: { apiKey?: string; routerCredential?: string }) => {
      received.length = 0;
      const weft = new Weft({
        executionMode: 'self_hosted',
        routerUrl: url,
        logLevel: 'silent',
        inheritEnvironment: false,
        ...options,
      });
      await weft.router!.invoke({
        target: { kind: 'plugin', slug: 'slack' },
        action: 'send',
        input: {},
        context: makeContext({ idempotencyKey: 'exec-1/a' }),
      });
      await weft.close();
      return received[0]!.headers.authorization;
    };
    expect(await sent({ apiKey: 'weft_key', routerCredential: 'router-token' })).toBe(
      'Bearer router-token',
    );
    expect(await sent({ apiKey: 'weft_key' })).toBe('Bearer weft_key');
    expect(await sent({})).toBeUndefined();
  });

  it('closes the call when the step is canceled, so the router abandons it', async () => {
    answer.delayMs = 60_000;
    const closed = new Promise<void>((resolve) =>
      server.once('request', (req) => req.socket.once('close', resolve)),
    );
    const invoker = new RouterInvoker({ routerUrl: url });
    const controller = new AbortController();
    const pending = call(invoker, { context: makeContext({ signal: controller.signal }) });
    await new Promise<void>((resolve) => server.once('request', () => resolve()));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'CANCELED' });
    await closed;
    await invoker.close();
  });
});
