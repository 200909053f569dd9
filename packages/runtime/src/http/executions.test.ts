import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestExecutionsStore, type TestExecutions } from '@weft/store';
import {
  buildRuntimeHarness,
  KEYS,
  testActions,
  workflowText,
  type RuntimeHarness,
} from '../test-support/harness.js';

const DOUBLE = workflowText(
  `      - { name: a, plugin: math, action: double, input: { v: '{{ inputs.n }}' } }
      - { name: b, plugin: math, action: double, input: { v: '{{ steps.a.output.v }}' } }
`,
  `    inputs: { n: { type: number, required: true } }
    outputs: { result: { value: '{{ steps.b.output.v }}' } }
`,
);

let store: TestExecutions;
let h: RuntimeHarness;
let gate: Promise<void>;
let open: () => void;

beforeEach(async () => {
  store = await openTestExecutionsStore('memory');
  gate = Promise.resolve();
  const actions = testActions({
    'math.double': (input) => ({ v: (input['v'] as number) * 2 }),
    'slow.wait': (_input, context) =>
      new Promise((resolve, reject) => {
        void gate.then(() => resolve({ done: true }));
        context.signal.addEventListener('abort', () => reject(context.signal.reason));
      }),
  });
  h = await buildRuntimeHarness(store.executions, actions);
});

afterEach(async () => {
  open?.();
  await h.close();
  await store.dispose();
});

function hold(): void {
  gate = new Promise((resolve) => (open = resolve));
}

const post = (body: unknown, headers: Record<string, string> = {}) =>
  h.app.inject({
    method: 'POST',
    url: '/workflows/executions',
    headers: { authorization: KEYS.alice, ...headers },
    payload: body as object,
  });

const get = (url: string, key: string = KEYS.alice) =>
  h.app.inject({ method: 'GET', url, headers: { authorization: key } });

async function poll(id: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 200; i++) {
    const body = get(`/workflows/executions/${id}`).then((r) => r.json());
    const record = await body;
    if (!['pending', 'running'].includes(record.status)) return record;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('execution did not end');
}

describe('starting executions', () => {
  it('answers 202 with the pending record, then polling gives the result', async () => {
    const response = await post({ workflow: DOUBLE, inputs: { n: 3 } });
    expect(response.statusCode).toBe(202);
    const pending = response.json();
    expect(pending).toMatchObject({ status: 'pending', workflow: 'w', mode: 'cloud' });
    expect(pending.poll_url).toBe(`/workflows/executions/${pending.execution_id}`);
    expect(response.headers['location']).toBe(pending.poll_url);
    const done = await poll(pending.execution_id);
    expect(done).toMatchObject({
      status: 'completed',
      result: { outputs: { result: 12 } },
      trigger: 'api',
    });
    expect((done['result'] as { steps: Record<string, unknown> }).steps['a']).toMatchObject({
      status: 'success',
      output: { v: 6 },
    });
    expect(done['started_at']).toEqual(expect.any(String));
    expect(done['finished_at']).toEqual(expect.any(String));
  });

  it('answers 200 with the ended record under Prefer: wait', async () => {
    const response = await post({ workflow_file: DOUBLE, inputs: { n: 1 } }, { prefer: 'wait=5' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['preference-applied']).toBe('wait=5');
    expect(response.json()).toMatchObject({
      status: 'completed',
      result: { outputs: { result: 4 } },
    });
  });

  it('answers 202 when the execution outlives Prefer: wait', async () => {
    hold();
    const slow = workflowText('      - { name: s, plugin: slow, action: wait }\n');
    const response = await post({ workflow: slow }, { prefer: 'wait=1' });
    expect(response.statusCode).toBe(202);
    expect(response.json().status).toBe('running');
  });

  it('stores a waited-for run to be made durable by its end, flushing when answering before it', async () => {
    await h.close();
    const calls: string[] = [];
    const inner = store.executions;
    const executions = new Proxy(inner, {
      get(target, property, receiver) {
        if (property === 'flush') return async () => void calls.push('flush');
        if (property === 'create') {
          return (...args: Parameters<typeof inner.create>) => {
            calls.push(`create durableAtEnd=${String(args[5])}`);
            return inner.create(...args);
          };
        }
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
      },
    });
    h = await buildRuntimeHarness(executions, h.runtime.options.actions);
    expect(
      (await post({ workflow: DOUBLE, inputs: { n: 1 } }, { prefer: 'wait=5' })).statusCode,
    ).toBe(200);
    expect((await post({ workflow: DOUBLE, inputs: { n: 1 } })).statusCode).toBe(202);
    expect(calls).toEqual(['create durableAtEnd=true', 'create durableAtEnd=false']);
    calls.length = 0;
    hold();
    const slow = workflowText('      - { name: s, plugin: slow, action: wait }\n');
    expect((await post({ workflow: slow }, { prefer: 'wait=1' })).statusCode).toBe(202);
    expect(calls).toEqual(['create durableAtEnd=true', 'flush']);
  });

  it('returns the same execution for the same idempotency key of the same key', async () => {
    const body = { workflow: DOUBLE, inputs: { n: 2 }, idempotency_key: 'order-7' };
    const first = (await post(body)).json();
    const again = await post(body);
    expect(again.json().execution_id).toBe(first.execution_id);
    expect(again.headers['idempotent-replayed']).toBe('true');
    const conflict = await post({ ...body, inputs: { n: 3 } });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json()).toMatchObject({
      code: 'CONFLICT',
      details: { field: 'idempotency_key' },
    });
    const bob = await h.app.inject({
      method: 'POST',
      url: '/workflows/executions',
      headers: { authorization: KEYS.bob },
      payload: body,
    });
    expect(bob.json().execution_id).not.toBe(first.execution_id);
  });

  it('runs a workflow given as an object, and picks workflow_name from a file', async () => {
    const single = await post(
      {
        workflow: { name: 'obj', steps: [{ name: 't', type: 'transform', input: { x: 1 } }] },
      },
      { prefer: 'wait=5' },
    );
    expect(single.json()).toMatchObject({ status: 'completed', workflow: 'obj' });
    const file = `workflows:
  - { name: one, steps: [{ name: t, type: transform, input: { x: 1 } }] }
  - { name: two, steps: [{ name: t, type: transform, input: { x: 2 } }], outputs: { x: { value: '{{ steps.t.output.x }}' } } }
`;
    const two = await post({ workflow: file, workflow_name: 'two' }, { prefer: 'wait=5' });
    expect(two.json()).toMatchObject({ workflow: 'two', result: { outputs: { x: 2 } } });
  });
});

describe('refusing bad requests (nothing is stored)', () => {
  const cases: [string, unknown, Record<string, string>][] = [
    ['no workflow', { inputs: {} }, { field: 'workflow', constraint: 'required' }],
    [
      'both forms',
      { workflow: DOUBLE, workflow_file: DOUBLE, inputs: { n: 1 } },
      { field: 'workflow_file' },
    ],
    [
      'an unknown field',
      { workflow: DOUBLE, inputs: { n: 1 }, extra: 1 },
      { constraint: 'additionalProperties' },
    ],
    ['inputs not an object', { workflow: DOUBLE, inputs: [1] }, { field: 'inputs' }],
    ['a missing required input', { workflow: DOUBLE }, { field: 'inputs.n' }],
    ['a broken workflow', { workflow: 'workflows: [ {' }, { constraint: 'syntax' }],
    [
      'an unknown workflow_name',
      { workflow: DOUBLE, workflow_name: 'zz', inputs: { n: 1 } },
      { field: 'workflow_name' },
    ],
    [
      'a callback to loopback',
      { workflow: DOUBLE, inputs: { n: 1 }, callback_url: 'http://127.0.0.1:9/x' },
      { field: 'callback_url', constraint: 'egress' },
    ],
    [
      'a callback to a private address',
      { workflow: DOUBLE, inputs: { n: 1 }, callback_url: 'http://10.1.2.3/x' },
      { field: 'callback_url' },
    ],
    [
      'a callback to metadata',
      { workflow: DOUBLE, inputs: { n: 1 }, callback_url: 'http://169.254.169.254/' },
      { field: 'callback_url' },
    ],
    [
      'a callback to IPv6 loopback',
      { workflow: DOUBLE, inputs: { n: 1 }, callback_url: 'http://[::1]/' },
      { field: 'callback_url' },
    ],
    [
      'a callback that is no URL',
      { workflow: DOUBLE, inputs: { n: 1 }, callback_url: 'nope' },
      { field: 'callback_url' },
    ],
    [
      'a callback over ftp',
      { workflow: DOUBLE, inputs: { n: 1 }, callback_url: 'ftp://example.com/' },
      { constraint: 'scheme' },
    ],
  ];
  it.each(cases)('refuses %s with VALIDATION naming the field', async (_name, body, details) => {
    const response = await post(body);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ status: 'error', code: 'VALIDATION', details });
    const list = await get('/workflows/executions');
    expect(list.json().executions).toEqual([]);
  });

  it('refuses a workflow using plugins that are neither published nor registered, naming each', async () => {
    const response = await post({
      workflow: workflowText(
        '      - { name: a, plugin: nowhere, action: x }\n      - { name: b, plugin: gone, action: y }\n      - { name: c, plugin: math, action: double }\n',
      ),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      code: 'VALIDATION',
      details: { constraint: 'plugins_available', unavailable: ['nowhere', 'gone'] },
    });
    expect(response.json().message).toContain('nowhere, gone');
  });

  it('refuses a malformed JSON body and a missing or wrong key', async () => {
    const malformed = await h.app.inject({
      method: 'POST',
      url: '/workflows/executions',
      headers: { authorization: KEYS.alice, 'content-type': 'application/json' },
      payload: '{"workflow": ',
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().code).toBe('VALIDATION');
    const anonymous = await h.app.inject({
      method: 'POST',
      url: '/workflows/executions',
      payload: {},
    });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().code).toBe('UNAUTHORIZED');
    expect((await get('/workflows/executions', 'Bearer wrong')).statusCode).toBe(401);
  });
});

describe('reading executions', () => {
  it('answers 404 for unknown ids and for another owner’s execution alike', async () => {
    const id = (await post({ workflow: DOUBLE, inputs: { n: 1 } })).json().execution_id;
    const unknown = await get('/workflows/executions/nope');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('NOT_FOUND');
    const other = await get(`/workflows/executions/${id}`, KEYS.bob);
    expect(other.statusCode).toBe(404);
    const cancel = await h.app.inject({
      method: 'POST',
      url: `/workflows/executions/${id}/cancel`,
      headers: { authorization: KEYS.bob },
    });
    expect(cancel.statusCode).toBe(404);
  });

  it('lists the owner’s executions with filters and a cursor', async () => {
    const ids: string[] = [];
    for (let n = 0; n < 5; n++) {
      ids.push(
        (await post({ workflow: DOUBLE, inputs: { n } }, { prefer: 'wait=5' })).json().execution_id,
      );
    }
    await h.app.inject({
      method: 'POST',
      url: '/workflows/executions',
      headers: { authorization: KEYS.bob },
      payload: { workflow: DOUBLE, inputs: { n: 1 } },
    });
    const first = (await get('/workflows/executions?limit=2')).json();
    expect(first.executions).toHaveLength(2);
    expect(first.next_cursor).toEqual(expect.any(String));
    const rest = (await get(`/workflows/executions?limit=10&cursor=${first.next_cursor}`)).json();
    expect(rest.executions).toHaveLength(3);
    expect(rest.next_cursor).toBeNull();
    const all = [...first.executions, ...rest.executions].map(
      (e: { execution_id: string }) => e.execution_id,
    );
    expect(new Set(all)).toEqual(new Set(ids));
    expect(
      (await get('/workflows/executions?status=completed&workflow=w')).json().executions,
    ).toHaveLength(5);
    expect((await get('/workflows/executions?status=failed')).json().executions).toHaveLength(0);
    const bad = await get('/workflows/executions?status=done');
    expect(bad.statusCode).toBe(400);
    expect((await get('/workflows/executions?limit=1000')).statusCode).toBe(400);
    const cursor = await get('/workflows/executions?cursor=xyz');
    expect(cursor.json()).toMatchObject({ code: 'VALIDATION', details: { field: 'cursor' } });
  });
});

describe('canceling', () => {
  it('aborts in-flight actions and ends the execution canceled with canceled_at', async () => {
    hold();
    let aborted = false;
    await h.close();
    h = await buildRuntimeHarness(
      store.executions,
      testActions({
        'slow.wait': (_input, context) =>
          new Promise((_resolve, reject) =>
            context.signal.addEventListener('abort', () => {
              aborted = true;
              reject(context.signal.reason);
            }),
          ),
      }),
    );
    const id = (
      await post({
        workflow: workflowText(
          `      - { name: first, type: transform, input: { ok: true } }
      - name: both
        type: parallel
        parallel:
          - { name: s, plugin: slow, action: wait }
          - { name: quick, type: transform, input: { ok: true } }
      - { name: never, type: transform, input: { ok: true } }
`,
        ),
      })
    ).json().execution_id;
    for (
      let i = 0;
      i < 100 && (await get(`/workflows/executions/${id}`)).json().status !== 'running';
      i++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const response = await h.app.inject({
      method: 'POST',
      url: `/workflows/executions/${id}/cancel`,
      headers: { authorization: KEYS.alice },
    });
    expect(response.statusCode).toBe(200);
    const record = response.json();
    expect(aborted).toBe(true);
    expect(record).toMatchObject({ status: 'canceled', error: { code: 'CANCELED' } });
    expect(record.canceled_at).toEqual(expect.any(String));
    expect(record.error.details.canceled_at).toBe(record.canceled_at);
    // The steps it stopped say so: canceled, not failed; those that ended before keep their status.
    const steps = (await get(`/workflows/executions/${id}`)).json().result.steps;
    expect(steps.first.status).toBe('success');
    expect(steps.both).toMatchObject({ status: 'canceled', error: { code: 'CANCELED' } });
    expect(steps.s).toMatchObject({ status: 'canceled', error: { code: 'CANCELED' } });
    expect(steps.quick.status).toBe('success');
    expect(steps.never).toBeUndefined();
    const again = await h.app.inject({
      method: 'POST',
      url: `/workflows/executions/${id}/cancel`,
      headers: { authorization: KEYS.alice },
    });
    expect(again.statusCode).toBe(200);
  });

  it('refuses to cancel an execution that already completed', async () => {
    const id = (await post({ workflow: DOUBLE, inputs: { n: 1 } }, { prefer: 'wait=5' })).json()
      .execution_id;
    const response = await h.app.inject({
      method: 'POST',
      url: `/workflows/executions/${id}/cancel`,
      headers: { authorization: KEYS.alice },
    });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ code: 'CONFLICT', details: { status: 'completed' } });
  });
});
