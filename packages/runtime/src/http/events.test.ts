import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { openTestExecutionsStore, type TestExecutions } from '@weft/store';
import {
  buildRuntimeHarness,
  KEYS,
  testActions,
  workflowText,
  type RuntimeHarness,
} from '../test-support/harness.js';

const THREE = workflowText(
  `      - { name: a, plugin: p, action: echo, input: { token: '{{ secrets.TOKEN }}' } }
      - { name: b, plugin: p, action: echo, input: { v: 2 } }
      - { name: c, plugin: p, action: echo, input: { v: 3 } }
`,
);

let store: TestExecutions;
let h: RuntimeHarness;
let url: string;

beforeEach(async () => {
  store = await openTestExecutionsStore('memory');
  h = await buildRuntimeHarness(
    store.executions,
    testActions({
      'p.echo': (input, context) => {
        context.progress(50, 'half');
        return input;
      },
    }),
    { secrets: { get: (name) => (name === 'TOKEN' ? 'hunter2-secret' : undefined) } },
  );
  url = await h.app.listen({ port: 0, host: '127.0.0.1' });
});

afterEach(async () => {
  await h.close();
  await store.dispose();
});

async function start(workflow: string, wait = true): Promise<string> {
  const response = await fetch(`${url}/workflows/executions`, {
    method: 'POST',
    headers: {
      authorization: KEYS.alice,
      'content-type': 'application/json',
      ...(wait ? { prefer: 'wait=10' } : {}),
    },
    body: JSON.stringify({ workflow }),
  });
  return ((await response.json()) as { execution_id: string }).execution_id;
}

interface SseEvent {
  id: string;
  event: string;
  data: Record<string, unknown>;
}

async function readSse(id: string, headers: Record<string, string> = {}, stopAfter = Infinity) {
  const controller = new AbortController();
  const response = await fetch(`${url}/workflows/executions/${id}/events`, {
    headers: { authorization: KEYS.alice, ...headers },
    signal: controller.signal,
  });
  const events: SseEvent[] = [];
  if (!response.ok) return { status: response.status, events, body: await response.json() };
  const decoder = new TextDecoder();
  let text = '';
  const reader = response.body!.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = text.indexOf('\n\n')) >= 0) {
        const block = text.slice(0, end);
        text = text.slice(end + 2);
        const fields = Object.fromEntries(
          block
            .split('\n')
            .filter((l) => !l.startsWith(':') && l.includes(': '))
            .map((l) => [l.slice(0, l.indexOf(': ')), l.slice(l.indexOf(': ') + 2)]),
        );
        if (fields['data'] === undefined) continue;
        events.push({
          id: fields['id']!,
          event: fields['event']!,
          data: JSON.parse(fields['data']),
        });
        if (events.length >= stopAfter) {
          controller.abort();
          return { status: response.status, events, body: undefined };
        }
      }
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  }
  return { status: response.status, events, body: undefined };
}

describe('server-sent events', () => {
  it('replays a finished execution with an id on every event, and closes', async () => {
    const id = await start(THREE);
    const { events, status } = await readSse(id);
    expect(status).toBe(200);
    expect(events.map((e) => e.event)).toEqual([
      'step.started',
      'step.progress',
      'step.completed',
      'step.started',
      'step.progress',
      'step.completed',
      'step.started',
      'step.progress',
      'step.completed',
      'workflow.completed',
    ]);
    expect(events.map((e) => Number(e.id))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(events[1]!.data).toMatchObject({
      type: 'step.progress',
      workflow_id: id,
      step_name: 'a',
      data: { percent: 50, message: 'half' },
    });
    expect(JSON.stringify(events)).not.toContain('hunter2-secret');
    expect(events[2]!.data['data']).toMatchObject({ output: { token: '***' } });
  });

  it('resumes after Last-Event-ID without losing or repeating an event', async () => {
    const id = await start(THREE);
    const first = await readSse(id, {}, 4);
    expect(first.events.map((e) => e.id)).toEqual(['1', '2', '3', '4']);
    const rest = await readSse(id, { 'last-event-id': '4' });
    expect(rest.events.map((e) => e.id)).toEqual(['5', '6', '7', '8', '9', '10']);
  });

  it('streams a running execution live until workflow.completed', async () => {
    const id = await start(THREE, false);
    const { events } = await readSse(id);
    expect(events.at(-1)!.event).toBe('workflow.completed');
    expect(events.map((e) => Number(e.id))).toEqual(events.map((_, i) => i + 1));
  });

  it('sends only the types listed in execution.streaming.events', async () => {
    const filtered = workflowText(
      '      - { name: b, plugin: p, action: echo, input: { v: 2 } }\n',
      '    execution: { streaming: { enabled: true, events: [step.completed, workflow.completed] } }\n',
    );
    const id = await start(filtered);
    const { events } = await readSse(id);
    expect(events.map((e) => e.event)).toEqual(['step.completed', 'workflow.completed']);
    expect(events.map((e) => e.id)).toEqual(['1', '2']);
  });

  it('answers 404 for another owner’s stream, 400 for a bad Last-Event-ID, 401 without a key', async () => {
    const id = await start(THREE);
    const other = await fetch(`${url}/workflows/executions/${id}/events`, {
      headers: { authorization: KEYS.bob },
    });
    expect(other.status).toBe(404);
    expect(((await other.json()) as { code: string }).code).toBe('NOT_FOUND');
    const bad = await readSse(id, { 'last-event-id': 'abc' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ details: { field: 'last-event-id' } });
    const anonymous = await fetch(`${url}/workflows/executions/${id}/events`);
    expect(anonymous.status).toBe(401);
  });
});

describe('WebSocket', () => {
  function collect(path: string, key: string = KEYS.alice) {
    return new Promise<{ messages: Record<string, unknown>[]; code: number }>((resolve, reject) => {
      const socket = new WebSocket(`${url.replace('http', 'ws')}${path}`, {
        headers: { authorization: key },
      });
      const messages: Record<string, unknown>[] = [];
      socket.on('message', (data) => messages.push(JSON.parse(String(data))));
      socket.on('close', (code) => resolve({ messages, code }));
      socket.on('error', reject);
    });
  }

  it('sends every event with its id and closes normally at the end', async () => {
    const id = await start(THREE, false);
    const { messages, code } = await collect(`/workflows/executions/${id}/events`);
    expect(code).toBe(1000);
    expect(messages).toHaveLength(10);
    expect(messages[0]).toMatchObject({ id: '1', type: 'step.started', workflow_id: id });
    expect(messages.at(-1)).toMatchObject({ id: '10', type: 'workflow.completed' });
    const resumed = await collect(`/workflows/executions/${id}/events?last_event_id=8`);
    expect(resumed.messages.map((m) => m['id'])).toEqual(['9', '10']);
  });

  it('closes with 4404 for another owner’s execution', async () => {
    const id = await start(THREE);
    const { messages, code } = await collect(`/workflows/executions/${id}/events`, KEYS.bob);
    expect(code).toBe(4404);
    expect(messages).toEqual([]);
  });
});
