import { createServer, type IncomingHttpHeaders } from 'node:http';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { signWebhook } from '@weft/runtime';
import {
  bearer,
  kill,
  register,
  startConnector,
  startServerProcess,
  type ServerProcess,
  type TestConnector,
} from './runtime-support.js';

const dataDir = join(mkdtempSync(join(tmpdir(), 'weft-runtime-')), 'data');
let server: ServerProcess;
let key: string;
let other: string;
let connector: TestConnector;
const calls: string[] = [];
let release: (() => void) | undefined;
let blockedSeen: (() => void) | undefined;

const FLOW = `workflows:
  - name: flow
    inputs: { n: { type: number, default: 1 } }
    steps:
      - { name: a, plugin: calc, action: add, input: { v: '{{ inputs.n }}', tag: a } }
      - { name: b, plugin: calc, action: add, input: { v: '{{ steps.a.output.v }}', tag: b } }
    outputs: { v: { value: '{{ steps.b.output.v }}' } }
`;
const SLOW = `workflows:
  - name: slow
    steps:
      - { name: a, plugin: calc, action: add, input: { v: 1, tag: a } }
      - { name: b, plugin: calc, action: add, input: { v: '{{ steps.a.output.v }}', tag: b } }
      - { name: c, plugin: calc, action: block, input: { v: '{{ steps.b.output.v }}', tag: c } }
      - { name: d, plugin: calc, action: add, input: { v: '{{ steps.c.output.v }}', tag: d } }
    outputs: { v: { value: '{{ steps.d.output.v }}' } }
`;

async function api(path: string, init: RequestInit & { key?: string } = {}) {
  const response = await fetch(`${server.url}${path}`, {
    ...init,
    headers: {
      authorization: init.key ?? key,
      ...(init.body ? { 'content-type': 'application/json' } : {}),
      ...(init.headers as Record<string, string>),
    },
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text ? JSON.parse(text) : undefined,
  };
}

const start = (body: object, headers: Record<string, string> = {}) =>
  api('/workflows/executions', { method: 'POST', body: JSON.stringify(body), headers });

async function poll(id: string, until = (s: string) => s !== 'pending' && s !== 'running') {
  for (let i = 0; i < 600; i++) {
    const { body } = await api(`/workflows/executions/${id}`);
    if (until(body.status)) return body;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`execution ${id} did not get there`);
}

beforeAll(async () => {
  connector = await startConnector(async (action, input) => {
    calls.push(`${action}:${String(input['tag'])}`);
    if (action === 'calc.block' && release === undefined) {
      await new Promise<void>((resolve) => {
        release = resolve;
        blockedSeen?.();
      });
    }
    return { v: (input['v'] as number) + 1 };
  });
  server = await startServerProcess(dataDir, { WEFT_EGRESS_ALLOWLIST: '127.0.0.1/32' });
  key = await bearer(dataDir, 'alice');
  other = await bearer(dataDir, 'bob');
  await register(server.url, 'calc', ['add', 'block'], connector);
}, 60_000);

afterAll(async () => {
  release?.();
  await kill(server, 'SIGKILL');
  await connector.close();
});

describe('the runtime in a real weft server', () => {
  it('starts asynchronously and is polled to the end', async () => {
    const started = await start({ workflow: FLOW, inputs: { n: 5 } });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({
      status: 'pending',
      poll_url: `/workflows/executions/${started.body.execution_id}`,
    });
    const done = await poll(started.body.execution_id);
    expect(done).toMatchObject({ status: 'completed', result: { outputs: { v: 7 } } });
  });

  it('answers with the ended record under Prefer: wait', async () => {
    const response = await start({ workflow: FLOW, inputs: { n: 1 } }, { prefer: 'wait=10' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'completed', result: { outputs: { v: 3 } } });
  });

  it('refuses bad input: unknown ids, malformed bodies, private callbacks, unknown plugins, other owners', async () => {
    expect((await api('/workflows/executions/nope')).status).toBe(404);
    const malformed = await fetch(`${server.url}/workflows/executions`, {
      method: 'POST',
      headers: { authorization: key, 'content-type': 'application/json' },
      body: '{"workflow":',
    });
    expect(malformed.status).toBe(400);
    const privateCallback = await start({ workflow: FLOW, callback_url: 'http://10.0.0.1/hook' });
    expect(privateCallback.body).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'callback_url' },
    });
    const unknown = await start({ workflow: FLOW.replaceAll('calc', 'nowhere') });
    expect(unknown.body).toMatchObject({
      code: 'VALIDATION',
      details: { unavailable: ['nowhere'] },
    });
    const id = (await start({ workflow: FLOW }, { prefer: 'wait=10' })).body.execution_id;
    expect((await api(`/workflows/executions/${id}`, { key: other })).status).toBe(404);
    expect((await api(`/workflows/executions/${id}/events`, { key: other })).status).toBe(404);
    expect((await api(`/workflows/executions/${id}`, { key: 'Bearer nope' })).status).toBe(401);
  });

  it('delivers a signed callback, retried after two failures, with a stable webhook-id', async () => {
    const received: { headers: IncomingHttpHeaders; body: string }[] = [];
    const receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (c: Buffer) => (body += c.toString()));
      request.on('end', () => {
        received.push({ headers: request.headers, body });
        response.writeHead(received.length <= 2 ? 503 : 200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/done`;
      const id = (await start({ workflow: FLOW, callback_url: hook })).body.execution_id;
      let record;
      for (let i = 0; i < 400; i++) {
        record = (await api(`/workflows/executions/${id}`)).body;
        if (record.callback?.status === 'delivered') break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(record.callback).toMatchObject({ status: 'delivered', attempts: 3, last_status: 200 });
      expect(received).toHaveLength(3);
      expect(new Set(received.map((r) => r.headers['webhook-id'])).size).toBe(1);
      const { secret } = (await api('/workflows/callback-secret')).body;
      for (const { headers, body } of received) {
        const expected = signWebhook(
          secret,
          String(headers['webhook-id']),
          Number(headers['webhook-timestamp']),
          body,
        );
        expect(headers['webhook-signature']).toBe(expected['webhook-signature']);
      }
      expect(JSON.parse(received[2]!.body)).toMatchObject({
        execution_id: id,
        status: 'completed',
        result: { outputs: { v: 3 } },
      });
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it('streams SSE, and a dropped stream resumes with Last-Event-ID without loss or repeats', async () => {
    const id = (await start({ workflow: FLOW }, { prefer: 'wait=10' })).body.execution_id;
    const read = async (lastEventId?: string, stopAfter = Infinity) => {
      const controller = new AbortController();
      const response = await fetch(`${server.url}/workflows/executions/${id}/events`, {
        headers: { authorization: key, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
        signal: controller.signal,
      });
      expect(response.status).toBe(200);
      const ids: string[] = [];
      const types: string[] = [];
      const decoder = new TextDecoder();
      let text = '';
      try {
        for await (const chunk of response.body!) {
          text += decoder.decode(chunk as Uint8Array, { stream: true });
          for (const match of text.matchAll(/^id: (\d+)\nevent: (\S+)\n/gm)) {
            // A client that dropped after `stopAfter` events saw no more than those.
            if (ids.includes(match[1]!) || ids.length >= stopAfter) continue;
            ids.push(match[1]!);
            types.push(match[2]!);
          }
          if (ids.length >= stopAfter) {
            controller.abort();
            break;
          }
        }
      } catch (error) {
        if (!controller.signal.aborted) throw error;
      }
      return { ids, types };
    };
    const first = await read(undefined, 3);
    expect(first.ids).toEqual(['1', '2', '3']);
    const rest = await read(first.ids.at(-1));
    const all = [...first.ids, ...rest.ids].map(Number);
    expect(all).toEqual(all.map((_, i) => i + 1));
    expect(rest.types.at(-1)).toBe('workflow.completed');
  });

  it('streams over a WebSocket', async () => {
    const id = (await start({ workflow: FLOW })).body.execution_id;
    const messages = await new Promise<Record<string, unknown>[]>((resolve, reject) => {
      const socket = new WebSocket(
        `${server.url.replace('http', 'ws')}/workflows/executions/${id}/events`,
        {
          headers: { authorization: key },
        },
      );
      const got: Record<string, unknown>[] = [];
      socket.on('message', (data) => got.push(JSON.parse(String(data))));
      socket.on('close', () => resolve(got));
      socket.on('error', reject);
    });
    expect(messages.at(-1)).toMatchObject({ type: 'workflow.completed', workflow_id: id });
    expect(messages.map((m) => Number(m['id']))).toEqual(messages.map((_, i) => i + 1));
  });

  it('cancels a running execution: the record ends canceled with canceled_at', async () => {
    release = undefined;
    const seen = new Promise<void>((resolve) => (blockedSeen = resolve));
    const id = (await start({ workflow: SLOW })).body.execution_id;
    await seen;
    const canceled = await api(`/workflows/executions/${id}/cancel`, { method: 'POST' });
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ status: 'canceled', error: { code: 'CANCELED' } });
    expect(canceled.body.canceled_at).toEqual(expect.any(String));
    release!();
  });

  it('resumes after SIGKILL: every finished step ran exactly once and the execution completes', async () => {
    release = undefined;
    calls.length = 0;
    const seen = new Promise<void>((resolve) => (blockedSeen = resolve));
    const id = (await start({ workflow: SLOW })).body.execution_id;
    await seen;
    await kill(server, 'SIGKILL');
    server = await startServerProcess(dataDir, { WEFT_EGRESS_ALLOWLIST: '127.0.0.1/32' });
    const done = await poll(id);
    release!();
    expect(done).toMatchObject({ status: 'completed', result: { outputs: { v: 5 } } });
    // a and b finished before the kill: once each; c was in flight: again; d: once.
    expect(calls).toEqual([
      'calc.add:a',
      'calc.add:b',
      'calc.block:c',
      'calc.block:c',
      'calc.add:d',
    ]);
  }, 60_000);
});
