import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { Weft } from '../client/weft.js';
import { connectorMiddleware, connectorRoutes } from './mount.js';

function weft(): Weft {
  return new Weft({ logLevel: 'silent' })
    .registerConnector({
      connector: { kind: 'function', name: 'greet', namespace: 'demo', version: '1.0.0' },
      actions: [{ name: 'hello', input_schema: { type: 'object', required: ['name'] } }],
    })
    .registerHandler('greet.hello', (input: { name: string }) => ({ text: `hello ${input.name}` }));
}

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const post = (url: string, body: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('mounting connectors into an existing server', () => {
  it('adds POST /<prefix>/<plugin_slug>/execute to a Fastify app', async () => {
    const app = Fastify();
    app.get('/', async () => ({ mine: true }));
    await app.register(connectorRoutes(weft().invoker), { prefix: '/plugins' });
    const ok = await app.inject({
      method: 'POST',
      url: '/plugins/greet/execute',
      payload: { action: 'hello', input: { name: 'ada' } },
    });
    expect(ok.json()).toEqual({ status: 'success', data: { text: 'hello ada' } });
    const full = await app.inject({
      method: 'POST',
      url: '/plugins/greet/execute',
      payload: { action: 'greet.hello', input: {} },
    });
    expect(full.json()).toMatchObject({ code: 'VALIDATION', details: { field: 'input.name' } });
    const unknown = await app.inject({
      method: 'POST',
      url: '/plugins/nope/execute',
      payload: { action: 'x', input: {} },
    });
    expect(unknown.statusCode).toBe(404);
    expect((await app.inject('/')).json()).toEqual({ mine: true });
    await app.close();
  });

  it('serves a node:http server and passes other requests on', async () => {
    const handle = connectorMiddleware(weft().invoker, { prefix: '/plugins' });
    const url = await listen(
      createServer((req, res) => {
        if (handle(req, res)) return;
        res.end('mine');
      }),
    );
    const answer = await post(`${url}/plugins/greet/execute`, {
      action: 'hello',
      input: { name: 'bo' },
    });
    expect(await answer.json()).toEqual({ status: 'success', data: { text: 'hello bo' } });
    expect(await (await fetch(`${url}/other`)).text()).toBe('mine');
    const garbage = await fetch(`${url}/plugins/greet/execute`, { method: 'POST', body: '{' });
    expect(garbage.status).toBe(400);
    expect(await garbage.json()).toMatchObject({ code: 'VALIDATION', details: { field: 'body' } });
  });

  it('uses a body an Express-style parser already read, and calls next for other paths', async () => {
    const handle = connectorMiddleware(weft().invoker, { prefix: '/plugins' });
    let nexts = 0;
    const url = await listen(
      createServer((req, res) => {
        // What express.json() leaves behind: the parsed body on req.body, the stream consumed.
        let text = '';
        req.on('data', (c: Buffer) => (text += c.toString()));
        req.on('end', () => {
          Object.assign(req, { body: text ? (JSON.parse(text) as unknown) : undefined });
          handle(req, res, () => {
            nexts++;
            res.end('next');
          });
        });
      }),
    );
    const answer = await post(`${url}/plugins/greet/execute`, {
      action: 'greet.hello',
      input: { name: 'cy' },
    });
    expect(await answer.json()).toEqual({ status: 'success', data: { text: 'hello cy' } });
    expect(await (await fetch(`${url}/plugins/greet`)).text()).toBe('next');
    expect(nexts).toBe(1);
  });
});
