/**
 * Latency cases of the broker benchmark: one task at a time through a broker (publish task →
 * worker → result received) next to a bare `node:http` round trip on loopback (the limit). Each
 * case is started once and then called round by round (the suite interleaves the cases).
 */
import { createServer, request, Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { consumeTasks, TaskDispatcher } from '@weft/broker';
import type { BrokerClients } from './throughput.js';

/** A started latency case: one sequential call at a time, and its teardown. */
export interface LatencyCase {
  readonly name: string;
  once(): Promise<void>;
  close(): Promise<void>;
}

/** Milliseconds of `calls` sequential calls of `c`, each timed alone. */
export async function timeCalls(c: LatencyCase, calls: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const start = process.hrtime.bigint();
    await c.once();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return times;
}

/** Sequential dispatches through `TaskDispatcher` to a `consumeTasks` no-op worker. */
export async function dispatchCase(
  name: string,
  clients: BrokerClients,
  plugin: string,
): Promise<LatencyCase> {
  const worker = await consumeTasks({
    broker: clients.worker,
    pluginSlug: plugin,
    handle: () => 1,
  });
  const dispatcher = await TaskDispatcher.start({
    broker: clients.listener,
    group: `lat-${plugin}`,
  });
  let i = 0;
  return {
    name,
    async once() {
      await dispatcher.dispatch(
        { workflowId: `exec-${i++}`, plugin, action: 'noop', step: 's', input: {} },
        { timeoutMs: 10_000 },
      );
    },
    async close() {
      await dispatcher.stop();
      await worker.stop();
    },
  };
}

/** Sequential POSTs of a small JSON body to a bare `node:http` server answering JSON. */
export async function httpCase(): Promise<LatencyCase> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end('{"status":"success","output":1}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const body = JSON.stringify({ action: 'noop', input: {} });
  return {
    name: 'bare node:http round trip (limit)',
    once: () =>
      new Promise<void>((resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port, method: 'POST', path: '/execute', agent },
          (res) => {
            res.resume();
            res.on('end', resolve);
          },
        );
        req.on('error', reject);
        req.setHeader('content-type', 'application/json');
        req.end(body);
      }),
    async close() {
      agent.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
