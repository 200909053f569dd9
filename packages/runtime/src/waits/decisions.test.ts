import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openTestExecutionsStore, type TestExecutionsStore } from '@weft/store';
import { KEYS } from '../test-support/harness.js';
import { WAIT_STORES, waitWorld, type WaitWorld } from '../test-support/waits.js';

const APPROVAL = { kind: 'approval', timeoutMs: 3_600_000, details: { approvers: ['ops'] } };

let store: TestExecutionsStore | undefined;
let world: WaitWorld | undefined;
let receiver: Server | undefined;

afterEach(async () => {
  await world?.close();
  await store?.dispose();
  if (receiver) await new Promise((resolve) => receiver!.close(resolve));
  store = world = receiver = undefined;
});

/** The types of an execution's stored events, checking they are numbered 1, 2, 3… */
async function eventTypes(id: string): Promise<string[]> {
  const events = await store!.executions.events(id, 0, 100);
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  return events.map((e) => e.type);
}

describe.each(WAIT_STORES)('waiting executions on $name', ({ kind, url, skip }) => {
  it.skipIf(skip)('starts waiting: shown with what it waits for, nothing runs', async () => {
    store = await openTestExecutionsStore(kind, url);
    world = waitWorld(store);
    const h = await world.replica();
    const execution = await world.startWaiting(h, APPROVAL);
    expect(execution.status).toBe('waiting');
    const answer = await h.app.inject({
      method: 'GET',
      url: `/workflows/executions/${execution.id}`,
      headers: { authorization: KEYS.alice },
    });
    expect(answer.statusCode).toBe(200);
    const record = answer.json();
    expect(record).toMatchObject({ status: 'waiting', started_at: null });
    expect(record.waiting_for).toEqual({
      kind: 'approval',
      approvers: ['ops'],
      since: execution.created_at,
      expires_at: new Date(Date.parse(execution.created_at) + 3_600_000).toISOString(),
    });
    const listed = await h.app.inject({
      method: 'GET',
      url: '/workflows/executions?status=waiting',
      headers: { authorization: KEYS.alice },
    });
    expect(listed.json().executions.map((e: { execution_id: string }) => e.execution_id)).toEqual([
      execution.id,
    ]);
    expect(await eventTypes(execution.id)).toEqual(['approval.requested']);
    expect(world.calls).toEqual([]);
  });

  it.skipIf(skip)('resumed, it runs on; a second decision loses', async () => {
    store = await openTestExecutionsStore(kind, url);
    world = waitWorld(store);
    const h = await world.replica();
    const { id } = await world.startWaiting(h, APPROVAL);
    const granted = await h.runtime.resumeExecution(id, {
      kind: 'approval',
      data: { approved_by: 'dana' },
    });
    expect(granted.won).toBe(true);
    const ended = await h.runtime.waitFor(id, 'alice', 10_000);
    expect(ended).toMatchObject({ status: 'completed', result: { outputs: { last: 2 } } });
    expect(ended.started_at).not.toBeNull();
    expect(world.calls).toEqual(['step 1', 'step 2']);
    expect(await eventTypes(id)).toEqual([
      'approval.requested',
      'approval.granted',
      'step.started',
      'step.completed',
      'step.started',
      'step.completed',
      'workflow.completed',
    ]);
    const granted2 = await store.executions.events(id, 1, 1);
    expect(JSON.parse(granted2[0]!.json)).toMatchObject({ data: { approved_by: 'dana' } });
    expect((await h.runtime.resumeExecution(id)).won).toBe(false);
    expect((await h.runtime.endWaiting(id)).won).toBe(false);
    await expect(h.runtime.resumeExecution(id, { owner: 'bob' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it.skipIf(skip)('lets one of two replicas’ concurrent decisions win', async () => {
    store = await openTestExecutionsStore(kind, url);
    world = waitWorld(store);
    const [a, b] = [await world.replica(), await world.replica()];
    for (let round = 0; round < 3; round++) {
      const { id } = await world.startWaiting(a, APPROVAL);
      const decisions = await Promise.all([
        a.runtime.resumeExecution(id, { kind: 'approval' }),
        b.runtime.endWaiting(id, { kind: 'approval', details: { rejected_by: 'eve' } }),
      ]);
      expect(decisions.filter((d) => d.won)).toHaveLength(1);
      const ended = await a.runtime.waitFor(id, 'alice', 10_000);
      expect(ended.status).toBe(decisions[0].won ? 'completed' : 'canceled');
    }
  });

  it.skipIf(skip)('rejected, it ends canceled with who rejected it, and calls back', async () => {
    store = await openTestExecutionsStore(kind, url);
    world = waitWorld(store);
    const bodies: string[] = [];
    receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => (bodies.push(body), response.writeHead(200).end()));
    });
    await new Promise<void>((resolve) => receiver!.listen(0, '127.0.0.1', resolve));
    const port = (receiver.address() as AddressInfo).port;
    const h = await world.replica({ egressAllowlist: ['127.0.0.1/32'] });
    const { id } = await world.startWaiting(h, APPROVAL, {
      callbackUrl: `http://127.0.0.1:${port}/hook`,
    });
    expect((await h.runtime.endWaiting(id, { kind: 'event' })).won).toBe(false);
    const rejected = await h.runtime.endWaiting(id, {
      kind: 'approval',
      details: { rejected_by: 'eve', comment: 'not on a Friday' },
    });
    expect(rejected.won).toBe(true);
    expect(rejected.execution).toMatchObject({
      status: 'canceled',
      error: {
        code: 'CANCELED',
        details: { rejected_by: 'eve', comment: 'not on a Friday' },
      },
    });
    const canceledAt = rejected.execution.canceled_at;
    expect(rejected.execution.error?.details['canceled_at']).toBe(canceledAt);
    expect(await eventTypes(id)).toEqual([
      'approval.requested',
      'approval.rejected',
      'workflow.completed',
    ]);
    await expect.poll(() => bodies.length).toBe(1);
    expect(JSON.parse(bodies[0]!)).toMatchObject({ execution_id: id, status: 'canceled' });
    expect((await h.runtime.resumeExecution(id)).won).toBe(false);
    expect(world.calls).toEqual([]);
  });

  it.skipIf(skip)('canceled while it waits, it ends and never runs', async () => {
    store = await openTestExecutionsStore(kind, url);
    world = waitWorld(store);
    const h = await world.replica();
    const { id } = await world.startWaiting(h, APPROVAL);
    const answer = await h.app.inject({
      method: 'POST',
      url: `/workflows/executions/${id}/cancel`,
      headers: { authorization: KEYS.alice },
    });
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toMatchObject({ status: 'canceled', error: { code: 'CANCELED' } });
    expect(answer.json().waiting_for).toBeUndefined();
    expect((await h.runtime.resumeExecution(id)).won).toBe(false);
    expect(await eventTypes(id)).toEqual(['approval.requested', 'workflow.completed']);
    expect(world.calls).toEqual([]);
  });
});
