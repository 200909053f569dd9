import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invokerWith, rejection, run } from '../test-support/context.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server;
let base = '';
const seen: Seen[] = [];

function reply(res: ServerResponse, status: number, body: string, headers = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body);
}

/** A connector service (POST /svc/execute) and a few plain JSON endpoints. */
function handle(req: IncomingMessage, res: ServerResponse, body: string) {
  seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
  if (req.url === '/svc/execute') {
    const { action, input } = JSON.parse(body) as { action: string; input: { mode?: string } };
    switch (input.mode) {
      case 'error':
        return reply(
          res,
          400,
          JSON.stringify({ status: 'error', code: 'VALIDATION', message: 'channel is archived' }),
        );
      case 'garbage':
        return reply(res, 200, '<html>oops</html>');
      case 'crash':
        return reply(res, 500, 'Internal Server Error');
      default:
        return reply(
          res,
          200,
          JSON.stringify({ status: 'success', data: { action, echoed: input } }),
        );
    }
  }
  if (req.url?.startsWith('/users/'))
    return reply(res, 200, JSON.stringify({ path: req.url, method: req.method, body }));
  if (req.url === '/redirect') return reply(res, 302, '', { location: 'http://169.254.169.254/' });
  if (req.url === '/missing') return reply(res, 404, JSON.stringify({ error: 'no such user' }));
  if (req.url === '/huge') return reply(res, 200, JSON.stringify({ blob: 'x'.repeat(5000) }));
  reply(res, 404, '{}');
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => handle(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const service = (baseUrl = `${base}/svc`) =>
  invokerWith({
    connector: {
      kind: 'http',
      name: 'svc',
      namespace: 't',
      version: '1.0.0',
      base_url: baseUrl,
      headers: { 'X-Token': '{{ env.TOKEN }}' },
    },
    actions: [{ name: 'do' }],
  });

describe('http connector services (POST {base_url}/execute)', () => {
  it('posts {action: "<plugin>.<action>", input} with the idempotency key and answers data', async () => {
    const output = await run(
      service(),
      'svc.do',
      { n: 1 },
      { idempotencyKey: 'run-9/step', environment: { TOKEN: 't0k' } },
    );
    expect(output).toEqual({ action: 'svc.do', echoed: { n: 1 } });
    const request = seen.at(-1)!;
    expect(request.headers['idempotency-key']).toBe('run-9/step');
    expect(request.headers['x-token']).toBe('t0k');
    expect(JSON.parse(request.body)).toEqual({ action: 'svc.do', input: { n: 1 } });
  });

  it('turns an error answer into the WeftError of its code', async () => {
    const error = await rejection(
      run(service(), 'svc.do', { mode: 'error' }, { environment: { TOKEN: '' } }),
    );
    expect(error).toMatchObject({ code: 'VALIDATION', message: 'svc: channel is archived' });
  });

  it.each([
    ['a body that is not JSON', 'garbage'],
    ['a 500 without an error object', 'crash'],
  ])('reports %s as BACKEND_ERROR', async (_name, mode) => {
    const error = await rejection(
      run(service(), 'svc.do', { mode }, { environment: { TOKEN: '' } }),
    );
    expect(error['code']).toBe('BACKEND_ERROR');
    expect(error['details']).toMatchObject({ backend: 'svc' });
  });

  it('reports a refused connection as UNAVAILABLE {backend, suggestion}', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await rejection(
      run(service(`http://127.0.0.1:${port}`), 'svc.do', {}, { environment: { TOKEN: '' } }),
    );
    expect(error['code']).toBe('UNAVAILABLE');
    expect(error['details']).toMatchObject({ backend: 'svc' });
    expect(error['message']).toContain('ECONNREFUSED');
  });
});

describe('declarative http requests', () => {
  const api = (request: object, extra: object = {}) =>
    invokerWith({
      connector: {
        kind: 'http',
        name: 'api',
        namespace: 't',
        version: '1.0.0',
        base_url: base,
        ...extra,
      },
      actions: [{ name: 'call', request }],
    });

  it('sends the templated method, url, query and body and answers the JSON response', async () => {
    const invoker = api({
      method: 'PUT',
      url: '/users/{{ inputs.id }}',
      query: { q: '{{ inputs.q }}' },
      headers: { 'X-Step': 'user {{ inputs.id }}' },
      body: { name: '{{ inputs.name }}', tags: ['{{ inputs.q }}'], n: '{{ inputs.n }}' },
    });
    const output = await run(invoker, 'api.call', { id: 'a/b?c', q: 'x&y', name: 'Ada', n: 2 });
    expect(output).toMatchObject({ path: '/users/a%2Fb%3Fc?q=x%26y', method: 'PUT' });
    expect(JSON.parse((output as { body: string }).body)).toEqual({
      name: 'Ada',
      tags: ['x&y'],
      n: 2,
    });
    expect(seen.at(-1)!.headers['x-step']).toBe('user a/b?c');
  });

  it('refuses to follow a redirect', async () => {
    const error = await rejection(run(api({ url: '/redirect' }), 'api.call'));
    expect(error['code']).toBe('BACKEND_ERROR');
    expect(error['message']).toContain(
      'a redirect to http://169.254.169.254/, which is not followed',
    );
  });

  it('reports a non-2xx answer as BACKEND_ERROR with its status', async () => {
    const error = await rejection(run(api({ url: '/missing' }), 'api.call'));
    expect(error['details']).toMatchObject({ backend: 'api', status_code: 404 });
  });

  it('bounds the size of the answer', async () => {
    const invoker = invokerWith(
      {
        connector: { kind: 'http', name: 'api', namespace: 't', version: '1.0.0', base_url: base },
        actions: [{ name: 'call', request: { url: '/huge' } }],
      },
      { maxOutputBytes: 1000 },
    );
    expect((await rejection(run(invoker, 'api.call')))['message']).toContain(
      'over the limit of 1000 bytes',
    );
  });

  it('validates the answer against output_schema', async () => {
    const invoker = invokerWith({
      connector: { kind: 'http', name: 'api', namespace: 't', version: '1.0.0', base_url: base },
      actions: [
        {
          name: 'call',
          request: { url: '/users/1' },
          output_schema: { type: 'object', required: ['id'] },
        },
      ],
    });
    const error = await rejection(run(invoker, 'api.call'));
    expect(error['code']).toBe('BACKEND_ERROR');
    expect(error['message']).toContain('output.id is required');
  });
});
