import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { AJV_OPTIONS } from '@weft/http';
import type { Clock } from '@weft/core';
import { MemoryRoutesStore } from '@weft/store/memory';
import { Router } from '../router.js';
import type { RouterOptions } from '../options.js';

/** A real HTTP server on a free loopback port, answering with `handle`. */
export interface TestInstance {
  url: string;
  server: Server;
  calls: { body: unknown; headers: IncomingMessage['headers'] }[];
  close(): Promise<void>;
}

/** Starts a loopback instance; `handle` answers `POST /execute` and `GET /healthz`. */
export async function startInstance(
  handle: (req: IncomingMessage, res: ServerResponse, body: string) => void,
): Promise<TestInstance> {
  const calls: TestInstance['calls'] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.method === 'POST')
        calls.push({ body: JSON.parse(body || 'null'), headers: req.headers });
      handle(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    calls,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An instance that answers successes (docs/protocol.md#action-calls) naming itself, and `ok` health. */
export function echoInstance(name: string, health = 'ok') {
  return startInstance((req, res, body) => {
    res.setHeader('content-type', 'application/json');
    if (req.method === 'GET')
      return res.end(JSON.stringify({ status: health, version: '1.0.0', checks: {} }));
    const { input } = JSON.parse(body) as { input: unknown };
    res.end(JSON.stringify({ status: 'success', data: { by: name, input } }));
  });
}

/** A manual clock. */
export class TestClock implements Clock {
  constructor(public ms = Date.parse('2026-03-01T12:00:00.000Z')) {}
  now = () => this.ms;
  sleep = async () => undefined;
}

/**
 * A Fastify app with the router mounted on an in-memory table (health checks off by default;
 * `POST /execute` open unless `options` set `openExecute`), and the app's own `routes`.
 */
export async function routerApp(
  options: Partial<RouterOptions> = {},
  routes?: (app: FastifyInstance) => void,
): Promise<{ app: FastifyInstance; router: Router; store: MemoryRoutesStore; clock: TestClock }> {
  const store = new MemoryRoutesStore();
  const clock = new TestClock();
  const router = new Router({ store, clock, healthChecks: false, openExecute: true, ...options });
  const app = Fastify({
    ajv: { customOptions: AJV_OPTIONS },
  });
  await app.register(router.plugin());
  routes?.(app);
  await router.start();
  await app.ready();
  return { app, router, store, clock };
}

/** A record (docs/router.md#registration) for `url`. */
export function record(url: string, extra: Record<string, unknown> = {}) {
  return { plugin_slug: 'echo', version: '1.0.0', url, actions: ['say'], ...extra };
}
