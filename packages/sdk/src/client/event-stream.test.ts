import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudApi } from './cloud-api.js';
import { parseSse, streamExecution } from './event-stream.js';

const event = (n: number, type = 'step.completed') =>
  JSON.stringify({ type, timestamp: 't', workflow_id: 'x1', step_name: `s${n}`, data: {} });

/**
 * A peer speaking the SSE side of the executions API: the first connection sends two events
 * then drops (socket destroyed); the next resumes after `Last-Event-ID`.
 */
let server: Server;
let api: CloudApi;
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
    if (last === undefined) {
      send(response, 1, 2);
      setTimeout(() => response.socket?.destroy(), 20);
    } else {
      finished = true;
      send(response, Number(last) + 1, 4);
      response.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  api = new CloudApi({
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    apiKey: 'k',
  });
});

afterAll(async () => {
  await api.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('the execution event stream', () => {
  it('resumes a dropped connection with Last-Event-ID, losing and repeating nothing', async () => {
    const ids: string[] = [];
    for await (const e of streamExecution(api, 'x1')) ids.push(e.id);
    expect(ids).toEqual(['1', '2', '3', '4']);
    expect(lastIds).toEqual([undefined, '2']);
  });

  it('gives the server refusal of an unknown execution as its WeftError', async () => {
    const stream = streamExecution(api, 'nope');
    await expect(stream.next()).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('parses ids, multi-line data, comments and CRLF line ends', async () => {
    const body = Readable.from([
      Buffer.from(': comment\r\nid: 7\r\ndata: a\r\n'),
      Buffer.from('data: b\r\n\r\nretry: 50\nid: 8\ndata: c\n\n'),
    ]);
    const retries: number[] = [];
    const messages = [];
    for await (const m of parseSse(body, (ms) => retries.push(ms))) messages.push(m);
    expect(messages).toEqual([
      { id: '7', data: 'a\nb' },
      { id: '8', data: 'c' },
    ]);
    expect(retries).toEqual([50]);
  });
});
