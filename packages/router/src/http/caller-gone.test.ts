import { afterEach, describe, expect, it } from 'vitest';
import { CanceledError } from '@weft/core';
import { record, routerApp, startInstance, type TestInstance } from '../test-support/instances.js';

const apps: Awaited<ReturnType<typeof routerApp>>[] = [];
const instances: TestInstance[] = [];

afterEach(async () => {
  for (const { app, router } of apps.splice(0)) {
    await app.close();
    await router.close();
  }
  for (const i of instances.splice(0)) await i.close();
});

/** A router on loopback with one instance that never answers and tells when its call closes. */
async function setup() {
  const made = await routerApp();
  apps.push(made);
  let received: () => void = () => undefined;
  let closed: () => void = () => undefined;
  const receivedCall = new Promise<void>((resolve) => (received = resolve));
  const closedCall = new Promise<void>((resolve) => (closed = resolve));
  const instance = await startInstance((req) => {
    req.socket.once('close', closed);
    received();
  });
  instances.push(instance);
  await made.router.register(record(instance.url, { metadata: { instance_id: 'a' } }));
  return { ...made, receivedCall, closedCall };
}

describe('a call its caller gives up', () => {
  it('is abandoned when the HTTP caller closes its connection: the instance sees it close, in_flight drops', async () => {
    const { app, router, receivedCall, closedCall } = await setup();
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const caller = new AbortController();
    const pending = fetch(`${url}/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'echo.say', input: {} }),
      signal: caller.signal,
    }).catch(() => undefined);
    await receivedCall;
    expect(router.table.inFlight('echo', 'a')).toBe(1);
    caller.abort();
    await pending;
    await closedCall;
    for (let i = 0; i < 100 && router.table.inFlight('echo', 'a') !== 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(router.table.inFlight('echo', 'a')).toBe(0);
  });

  it('is abandoned when the in-process caller aborts its signal, rejecting with its reason', async () => {
    const { router, receivedCall, closedCall } = await setup();
    const controller = new AbortController();
    const call = router.dispatcher.execute('echo', 'say', {}, {}, undefined, controller.signal);
    await receivedCall;
    expect(router.table.inFlight('echo', 'a')).toBe(1);
    const reason = new CanceledError('the execution was canceled', {
      canceled_at: new Date().toISOString(),
    });
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    expect(router.table.inFlight('echo', 'a')).toBe(0);
    await closedCall;
  });
});
