import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionCall, RegistryStore } from '@weft/core';
import { MemoryRoutesStore } from '@weft/store/memory';
import { Router } from '@weft/router';
import { createDispatch } from './index.js';

/**
 * Runs sent by router reach every instance serving the action in turn: deciding the transport
 * does not itself take a turn of the round-robin.
 */

const servers: Server[] = [];
const calls: string[] = [];
const bodies: unknown[] = [];
let router: Router;

/** A loopback instance that answers every call with success and records its name. */
async function instance(name: string): Promise<string> {
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      calls.push(name);
      bodies.push(JSON.parse(text));
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status: 'success', data: { by: name } }));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  router = new Router({
    store: new MemoryRoutesStore(),
    healthChecks: false,
    openExecute: true,
    egressAllowlist: ['127.0.0.0/8'],
  });
  await router.start();
  for (const name of ['a', 'b']) {
    await router.register({
      plugin_slug: 'echo',
      version: '1.0.0',
      url: await instance(name),
      actions: ['say'],
      metadata: { instance_id: name },
    });
  }
});

afterAll(async () => {
  await router.close();
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

const call = (n: number): ActionCall => ({
  target: { kind: 'plugin', slug: 'echo' },
  action: 'say',
  input: {},
  context: {
    aborted: false,
    workflowId: 'wf-1',
    stepName: `s${n}`,
    inputs: {},
    executionMode: 'cloud',
    environment: {},
    secrets: {},
    previousSteps: {},
    signal: new AbortController().signal,
    idempotencyKey: `wf-1/s${n}`,
    progress: () => undefined,
  },
});

describe('dispatch by router', () => {
  it('spreads the calls of runs over every instance serving the action', async () => {
    // No published plugins: the registry is never read while an instance serves the action.
    const { actions } = createDispatch({ router, registry: {} as RegistryStore });
    const invoker = actions.invoker({ owner: 'acme', keyId: null });
    for (let n = 0; n < 4; n++) await invoker.invoke(call(n));
    expect(calls.toSorted()).toEqual(['a', 'a', 'b', 'b']);
  });

  it("sends the step's runtime in the execute body, and none when the call has none", async () => {
    const { actions } = createDispatch({ router, registry: {} as RegistryStore });
    const invoker = actions.invoker({ owner: 'acme', keyId: null });
    const runtime = { resources: { memory: '64MB' } };
    bodies.length = 0;
    await invoker.invoke({ ...call(5), runtime });
    await invoker.invoke(call(6));
    expect(bodies).toEqual([
      { action: 'echo.say', input: {}, runtime },
      { action: 'echo.say', input: {} },
    ]);
  });
});
