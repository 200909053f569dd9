import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudApi } from '../client/cloud-api.js';
import { streamExecution } from './event-stream.js';
import { HttpApi } from './http-api.js';

const event = (n: number, type = 'step.completed') =>
  JSON.stringify({ type, timestamp: 't', workflow_id: 'x1', step_name: `s${n}`, data: {} });

/**
 * A peer speaking the SSE side of the executions API: the first connection sends two events
 * then drops (socket destroyed); the next resumes after `Last-Event-ID`.
 */
let server: Server;
let baseUrl: string;
const lastIds: (string | undefined)[] = [];
let finished = false;

function send(response: ServerResponse, from: number, to: number) {
  for (let n = from; n <= to; n++) {
    const type = n === 4 ? 'workflow.completed' : 'step.completed';
    response.write(`id: ${n}\nevent: ${type}\ndata: ${event(n, type)}\n\n`);
  }
}

beforeAll(async () => {
  server = createServer((request, response) => {
    if (!request.url!.endsWith('/events')) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ execution_id: 'x1', status: finished ? 'completed' : 'running' }),
      );
      return;
    }
    if (request.url!.includes('/nope/')) {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(
        '{"status":"error","code":"NOT_FOUND","message":"no execution nope","details":{}}',
      );
      return;
    }
    const last = request.headers['last-event-id'] as string | undefined;
    lastIds.push(last);
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write(': hello\nretry: 10\n\n');
    if (last === undefined || last === '') {
      send(response, 1, 2);
      setTimeout(() => response.socket?.destroy(), 20);
    } else {
      finished = true;
      send(response, Number(last) + 1, 4);
      response.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** The same stream over both transports: the browser's fetch and the Node SDK's undici agent. */
const TRANSPORTS = [
  { name: 'fetch (browser entry)', make: () => new HttpApi({ baseUrl, apiKey: 'k' }) },
  { name: 'undici (Node SDK)', make: () => new CloudApi({ baseUrl, apiKey: 'k' }) },
];

describe.each(TRANSPORTS)('the execution event stream over $name', ({ make }) => {
  let api: HttpApi;
  beforeAll(() => {
    api = make();
    lastIds.length = 0;
    finished = false;
  });
  afterAll(() => api.close());

  it('resumes a dropped connection with Last-Event-ID, losing and repeating nothing', async () => {
    const ids: string[] = [];
    for await (const e of streamExecution(api, 'x1')) ids.push(e.id);
    expect(ids).toEqual(['1', '2', '3', '4']);
    expect(lastIds).toEqual([undefined, '2']);
  });

  it('resumes from a given lastEventId', async () => {
    const ids: string[] = [];
    for await (const e of streamExecution(api, 'x1', { lastEventId: '3' })) ids.push(e.id);
    expect(ids).toEqual(['4']);
    expect(lastIds.at(-1)).toBe('3');
  });

  it('gives the server refusal of an unknown execution as its ApiError, at once', async () => {
    const stream = streamExecution(api, 'nope');
    await expect(stream.next()).rejects.toMatchObject({
      name: 'ApiError',
      code: 'NOT_FOUND',
      status: 404,
    });
  });
});
