import { keyPrincipal, replicaWorkerId } from '@weft/core';
import { afterEach, describe, expect, it } from 'vitest';
import { openTestExecutionsStore, type TestExecutionsStore } from '@weft/store';
import {
  buildRuntimeHarness,
  KEYS,
  testActions,
  workflowText,
  type RuntimeHarness,
} from '../test-support/harness.js';

const CHAIN = workflowText(
  `      - { name: a, plugin: p, action: count, input: { v: 1 } }
      - { name: b, plugin: p, action: block, input: { v: '{{ steps.a.output.v + 1 }}' } }
      - { name: c, plugin: p, action: count, input: { v: '{{ steps.b.output.v + 1 }}' } }
`,
  `    outputs: { last: { value: '{{ steps.c.output.v }}' } }
`,
);

let store: TestExecutionsStore | undefined;
const harnesses: RuntimeHarness[] = [];

afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
  await store?.dispose();
});

describe('durable executions', () => {
  it('resumes an interrupted execution from its journal: finished steps never run again', async () => {
    store = await openTestExecutionsStore('sqlite');
    const calls: string[] = [];
    let release: () => void = () => {};
    const blocked = new Promise<void>((resolve) => (release = resolve));
    let entered: () => void = () => {};
    const inB = new Promise<void>((resolve) => (entered = resolve));
    const first = await buildRuntimeHarness(
      store.executions,
      testActions({
        'p.count': (input) => (calls.push(`a${String(input['v'])}`), input),
        'p.block': (input, context) => {
          calls.push(`b${String(input['v'])}`);
          entered();
          return new Promise((_resolve, reject) =>
            context.signal.addEventListener('abort', () => reject(context.signal.reason)),
          );
        },
      }),
    );
    harnesses.push(first);
    const id = (
      await first.app.inject({
        method: 'POST',
        url: '/workflows/executions',
        headers: { authorization: KEYS.alice },
        payload: { workflow: CHAIN },
      })
    ).json().execution_id;
    await inB;
    // The server goes away with b in flight: nothing more is journaled.
    await first.close();
    harnesses.pop();
    expect((await store.executions.get(id))!.status).toBe('running');
    expect((await store.executions.steps(id)).map((s) => s.path)).toEqual(['a']);

    const second = await buildRuntimeHarness(
      store.executions,
      testActions({
        'p.count': (input) => (calls.push(`c${String(input['v'])}`), input),
        'p.block': (input) => (calls.push(`b${String(input['v'])}`), input),
      }),
      { takeOverOnStart: true },
    );
    harnesses.push(second);
    release();
    await blocked;
    const record = await second.runtime.waitFor(id, 'alice', 5000);
    expect(record.status).toBe('completed');
    expect(record.result!.outputs).toEqual({ last: 3 });
    // a ran once (before), b twice (it was in flight), c once (after).
    expect(calls).toEqual(['a1', 'b2', 'b2', 'c3']);
    const events = await store.executions.events(id, 0, 100);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.at(-1)!.type).toBe('workflow.completed');
  });

  it('takes over an execution whose server stopped renewing its lease', async () => {
    store = await openTestExecutionsStore('sqlite');
    const h = await buildRuntimeHarness(
      store.executions,
      testActions({ 'p.count': (input) => input, 'p.block': (input) => input }),
      { leaseMs: 200, sweepMs: 50 },
    );
    harnesses.push(h);
    const created = await h.runtime.startExecution({
      workflow: (await import('./definition.js')).loadRequestedWorkflow({ workflow: CHAIN })
        .workflow,
      trigger: { type: 'api' },
      principal: keyPrincipal({ keyId: 'ka', owner: 'alice' }),
    });
    await created.done;
    // Another (dead) server claimed a second execution and never renewed it.
    const stuck = { ...created.execution, id: 'stuck-1', status: 'pending' as const };
    await store.executions.create(stuck);
    await store.executions.claim('stuck-1', 'dead-worker', Date.now(), Date.now() + 100, 'x');
    const record = await h.runtime.waitFor('stuck-1', 'alice', 5000);
    expect(record.status).toBe('completed');
  });

  it('takes back at once the runs its replica held before a restart, not those of others', async () => {
    store = await openTestExecutionsStore('sqlite');
    const actions = testActions({ 'p.count': (input) => input, 'p.block': (input) => input });
    const first = await buildRuntimeHarness(store.executions, actions, { replica: 'replica-a' });
    const created = await first.runtime.startExecution({
      workflow: (await import('./definition.js')).loadRequestedWorkflow({ workflow: CHAIN })
        .workflow,
      trigger: { type: 'api' },
      principal: keyPrincipal({ keyId: 'ka', owner: 'alice' }),
    });
    await created.done;
    await first.close();
    // The replica's old process died holding one run, another replica holds one: both leases
    // run far into the future.
    const far = Date.now() + 3_600_000;
    const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    for (const [id, holder] of [
      ['held-by-a', replicaWorkerId('replica-a', uuid(1))],
      ['held-by-b', replicaWorkerId('replica-b', uuid(1))],
    ] as const) {
      await store.executions.create({ ...created.execution, id, status: 'pending' });
      await store.executions.claim(id, holder, Date.now(), far, 'x');
    }

    const restarted = await buildRuntimeHarness(store.executions, actions, {
      replica: 'replica-a',
    });
    harnesses.push(restarted);
    const record = await restarted.runtime.waitFor('held-by-a', 'alice', 5000);
    expect(record.status).toBe('completed');
    expect((await store.executions.get('held-by-b'))!.status).toBe('running');
  });
});
