import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudApi } from '../client/cloud-api.js';
import { ApiError } from './api-error.js';
import { HttpApi } from './http-api.js';

/** A peer answering what each path asks for; it keeps the headers of the last request. */
let server: Server;
let baseUrl: string;
let lastHeaders: IncomingHttpHeaders = {};

beforeAll(async () => {
  server = createServer((request, response) => {
    lastHeaders = request.headers;
    switch (request.url) {
      case '/proxy-page':
        response.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>');
        return;
      case '/limited':
        response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '3' });
        response.end(
          '{"status":"error","code":"RATE_LIMITED","message":"slow down","details":{"limit":10}}',
        );
        return;
      case '/odd-code':
        response.writeHead(418, { 'content-type': 'application/json' });
        response.end('{"status":"error","code":"TEAPOT","message":"short and stout"}');
        return;
      case '/big':
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ data: 'x'.repeat(5000) }));
        return;
      case '/text':
        response.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
        return;
      default:
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const TRANSPORTS = [
  {
    name: 'fetch (browser entry)',
    make: (maxResponseBytes?: number) =>
      new HttpApi({ baseUrl, apiKey: 'k1', ...(maxResponseBytes ? { maxResponseBytes } : {}) }),
  },
  {
    name: 'undici (Node SDK)',
    make: (maxResponseBytes?: number) =>
      new CloudApi({ baseUrl, apiKey: 'k1', ...(maxResponseBytes ? { maxResponseBytes } : {}) }),
  },
];

describe.each(TRANSPORTS)('the HTTP layer over $name', ({ make }) => {
  it('sends the bearer key and JSON, and parses the JSON answer', async () => {
    const api = make();
    const answer = await api.call('POST', '/echo', { body: { a: 1 } });
    expect(answer).toMatchObject({ status: 200, json: { ok: true } });
    expect(lastHeaders).toMatchObject({
      authorization: 'Bearer k1',
      'content-type': 'application/json',
      accept: 'application/json',
    });
    await api.close();
  });

  it('gives an error page without an error object as BACKEND_ERROR with its status', async () => {
    const api = make();
    const error = await api.call('GET', '/proxy-page').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      code: 'BACKEND_ERROR',
      status: 502,
      fromServer: false,
      message: 'GET /proxy-page: the server answered 502',
    });
    await api.close();
  });

  it('decodes the error object with its details and Retry-After', async () => {
    const api = make();
    const error = await api.call('GET', '/limited').catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'ApiError',
      code: 'RATE_LIMITED',
      message: 'slow down',
      details: { limit: 10 },
      status: 429,
      retryAfterSeconds: 3,
      fromServer: true,
    });
    const odd = await api.call('GET', '/odd-code').catch((e: unknown) => e);
    expect(odd).toMatchObject({ code: 'BACKEND_ERROR', status: 418, message: 'short and stout' });
    await api.close();
  });

  it('refuses an answer over maxResponseBytes and a 2xx answer that is not JSON', async () => {
    const api = make(1000);
    await expect(api.call('GET', '/big')).rejects.toMatchObject({
      code: 'BACKEND_ERROR',
      details: { original_error: 'answer too large' },
    });
    await expect(api.call('GET', '/text')).rejects.toMatchObject({
      code: 'BACKEND_ERROR',
      message: 'GET /text: the server answered 200 with non-JSON',
    });
    await api.close();
  });

  it('gives an aborted request as CANCELED', async () => {
    const api = make();
    const controller = new AbortController();
    controller.abort();
    await expect(api.call('GET', '/echo', { signal: controller.signal })).rejects.toMatchObject({
      code: 'CANCELED',
    });
    await api.close();
  });
});

describe('the browser HTTP layer', () => {
  it('asks a key getter at each request, and sends no Authorization without a key', async () => {
    let key = 'first';
    const api = new HttpApi({ baseUrl, apiKey: () => key });
    await api.call('GET', '/a');
    expect(lastHeaders['authorization']).toBe('Bearer first');
    key = 'second';
    await api.call('GET', '/a');
    expect(lastHeaders['authorization']).toBe('Bearer second');
    await new HttpApi({ baseUrl }).call('GET', '/a');
    expect(lastHeaders['authorization']).toBeUndefined();
  });

  it('refuses a base URL that is not absolute http(s) before any request', () => {
    expect(() => new HttpApi({ baseUrl: '/relative' })).toThrow(
      expect.objectContaining({
        code: 'VALIDATION',
        details: { field: 'baseUrl', constraint: 'url' },
      }),
    );
  });
});
