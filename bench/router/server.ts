/**
 * Child process of the router benchmark. `argv[2]` picks what it serves on a free loopback port:
 * `bare` (node:http answering a constant), `service` (a connector service), `proxy` (a naive
 * node:http proxy to argv[3] keeping its upstream connections open: the best proxy a user could
 * write in a few lines), `router` (weft server, with the connector service at argv[3]
 * registered and health checks every second; `POST /execute` takes the router token
 * {@link BENCH_ROUTER_TOKEN} or the API key it reports) or `router-open` (the same with
 * `POST /execute` open: no credential). Reports `{url, key?}` to the parent, its CPU time on
 * 'cpu', and exits on 'stop'.
 */
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createConnectorService } from '@weft/sdk/service';
import { createApiKey } from '@weft/identity';
import { buildServer } from '@weft/server';

/** The router token of the `router` kind (registration and `POST /execute`). */
export const BENCH_ROUTER_TOKEN = 'bench-router-token-0123456789';

const [kind, target] = process.argv.slice(2);
let stop: () => Promise<void>;
let url: string;
let key: string | undefined;

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

switch (kind) {
  case 'bare': {
    const body = JSON.stringify({ status: 'success', data: { n: 1 } });
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(body);
      });
    });
    server.keepAliveTimeout = 60_000;
    url = await listen(server);
    stop = () => new Promise((r) => server.close(() => r()));
    break;
  }
  case 'service': {
    const service = await createConnectorService({
      connector: {
        connector: {
          kind: 'function',
          name: 'bench',
          namespace: 'bench',
          version: '1.0.0',
          concurrency: 100,
        },
        actions: [
          {
            name: 'echo',
            input_schema: { type: 'object', properties: { n: { type: 'integer' } } },
          },
        ],
      },
      handlers: { echo: (input: { n?: number }) => ({ n: input.n ?? 0 }) },
      routerUrl: '',
      handleSignals: false,
      logger: pino({ level: 'silent' }),
    });
    url = service.url;
    stop = () => service.close();
    break;
  }
  case 'proxy': {
    // What a user would write instead of a router: forward every request to one upstream, over
    // kept-alive connections (as Node's global agent does since Node 19; said here explicitly).
    const upstream = new URL(target!);
    const agent = new Agent({ keepAlive: true });
    const server = createServer((req, res) => {
      const forwarded = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          path: req.url,
          method: req.method,
          headers: req.headers,
          agent,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forwarded.on('error', () => {
        res.writeHead(502);
        res.end();
      });
      req.pipe(forwarded);
    });
    url = await listen(server);
    stop = () => new Promise((r) => server.close(() => r()));
    break;
  }
  case 'router':
  case 'router-open': {
    const open = kind === 'router-open';
    const built = await buildServer(
      {
        dataDir: mkdtempSync(join(tmpdir(), 'weft-bench-router-')),
        logLevel: 'error',
        healthIntervalMs: 1000,
        routerToken: BENCH_ROUTER_TOKEN,
        routerOpenExecute: open,
      },
      { logger: false },
    );
    if (!open)
      key = (await createApiKey(built.store, { name: 'bench' }, new Date().toISOString())).key;
    await built.app.listen({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(built.app.server.address() as AddressInfo).port}`;
    const answer = await fetch(`${url}/register`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${BENCH_ROUTER_TOKEN}`,
      },
      body: JSON.stringify({
        plugin_slug: 'bench',
        version: '1.0.0',
        url: target,
        actions: ['echo'],
      }),
    });
    if (answer.status !== 201)
      throw new Error(`registration answered ${answer.status}: ${await answer.text()}`);
    stop = () => built.close();
    break;
  }
  default:
    throw new Error(`unknown bench server kind ${kind}`);
}

process.send?.({ url, ...(key ? { key } : {}) });
process.on('message', async (message) => {
  if (message === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send?.({ cpuUs: user + system });
    return;
  }
  await stop();
  process.exit(0);
});
