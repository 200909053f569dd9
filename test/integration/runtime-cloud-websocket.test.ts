import { mkdtempSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Weft, type WorkflowDefinition } from '@weft/sdk';
import { bearer, kill, startServerProcess, type ServerProcess } from './runtime-support.js';

/**
 * The SDK's `stream()` of a server execution over the server's WebSocket, against a real
 * `weft server` process. A loopback TCP relay in front of it notes each request and whether it
 * asks for a WebSocket upgrade, to tell the transports apart.
 */
const dataDir = join(mkdtempSync(join(tmpdir(), 'weft-ws-')), 'data');
let server: ServerProcess;
let relay: Server;
let relayUrl: string;
let key: string;
const requests: string[] = [];

const flow = (name: string, protocol: 'sse' | 'websocket'): WorkflowDefinition =>
  ({
    name,
    version: '1.0.0',
    execution: { streaming: { protocol, events: ['step.completed', 'workflow.completed'] } },
    steps: [
      { name: 'a', type: 'transform', input: { n: 1 } },
      { name: 'b', type: 'transform', input: { n: '{{ steps.a.output.n + 1 }}' } },
    ],
    outputs: { n: { value: '{{ steps.b.output.n }}' } },
  }) as unknown as WorkflowDefinition;

function client(): Weft {
  const weft = new Weft({
    executionMode: 'cloud',
    apiKey: key,
    cloudUrl: relayUrl,
    logLevel: 'silent',
    inheritEnvironment: false,
  });
  weft.addWorkflows([flow('sockety', 'websocket'), flow('plain', 'sse')]);
  return weft;
}

/** The requests for `path` seen by the relay, as `upgrade` or `http`. */
const transports = (path: string) =>
  requests
    .filter((r) => r.includes(path))
    .map((r) => (/upgrade: websocket/i.test(r) ? 'upgrade' : 'http'));

beforeAll(async () => {
  server = await startServerProcess(dataDir);
  key = (await bearer(dataDir, 'ws')).slice('Bearer '.length);
  const upstream = new URL(server.url);
  relay = createServer((socket) => {
    const onward = connect(Number(upstream.port), upstream.hostname);
    // A kept-alive connection carries several requests: note each chunk that starts one.
    socket.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1');
      if (/^(GET|POST|PUT|DELETE) \//.test(text)) requests.push(text);
    });
    socket.pipe(onward).pipe(socket);
    socket.on('error', () => onward.destroy());
    onward.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  relayUrl = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  if (server) await kill(server);
  await new Promise<void>((resolve) => relay.close(() => resolve()));
});

describe('stream() and execution.streaming.protocol', () => {
  it('streams over the WebSocket when the workflow says protocol: websocket', async () => {
    const weft = client();
    const pending = await weft.executeAsync('sockety', {});
    const record = await weft.getExecution(pending.execution_id);
    expect(record.stream_protocol).toBe('websocket');
    const events: string[] = [];
    for await (const event of weft.stream(pending.execution_id)) {
      expect(event.workflow_id).toBe(pending.execution_id);
      events.push(`${event.type} ${event.step_name}`);
    }
    expect(events).toEqual(['step.completed a', 'step.completed b', 'workflow.completed ']);
    expect(transports(`/workflows/executions/${pending.execution_id}/events`)).toEqual(['upgrade']);
    await weft.close();
  });

  it('streams over server-sent events for sse, and over the WebSocket when asked to', async () => {
    const weft = client();
    const pending = await weft.executeAsync('plain', {});
    const sse: string[] = [];
    for await (const event of weft.stream(pending.execution_id)) sse.push(event.id);
    const ws: string[] = [];
    for await (const event of weft.stream(pending.execution_id, { protocol: 'websocket' }))
      ws.push(event.id);
    expect(ws).toEqual(sse);
    expect(sse).toHaveLength(3);
    // Resuming after an event id over the WebSocket.
    const rest: string[] = [];
    for await (const event of weft.stream(pending.execution_id, {
      protocol: 'websocket',
      lastEventId: sse[0]!,
    }))
      rest.push(event.type);
    expect(rest).toEqual(['step.completed', 'workflow.completed']);
    expect(transports(`/workflows/executions/${pending.execution_id}/events`)).toEqual([
      'http',
      'upgrade',
      'upgrade',
    ]);
    await weft.close();
  });

  it('throws NOT_FOUND for an unknown execution over the WebSocket', async () => {
    const weft = client();
    const stream = weft.stream('00000000-0000-4000-8000-000000000000', { protocol: 'websocket' });
    await expect(stream.next()).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await weft.close();
  });
});
