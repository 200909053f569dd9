/**
 * Latency cases of the broker benchmark: one task at a time through a broker (publish task →
 * worker → result received) next to a bare `node:http` round trip on loopback (the limit).
 */
import { createServer, request, Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { consumeTasks, TaskDispatcher } from '@weft/broker';
import type { BrokerClients } from './throughput.js';

/** Measured latency of one case. */
export interface LatencyResult {
  name: string;
  samples: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
}

function summarize(name: string, times: number[]): LatencyResult {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  return { name, samples: sorted.length, p50Ms: at(0.5), p99Ms: at(0.99), meanMs: mean };
}

/** Sequential dispatches through `TaskDispatcher` to a `consumeTasks` no-op worker. */
export async function dispatchLatency(
  name: string,
  clients: BrokerClients,
  samples: number,
  plugin: string,
): Promise<LatencyResult> {
  const worker = await consumeTasks({
    broker: clients.worker,
    pluginSlug: plugin,
    handle: () => 1,
  });
  const dispatcher = await TaskDispatcher.start({
    broker: clients.listener,
    group: `lat-${plugin}`,
  });
  const times: number[] = [];
  for (let i = 0; i < samples + 50; i++) {
    const start = process.hrtime.bigint();
    await dispatcher.dispatch(
      { workflowId: `exec-${i}`, plugin, action: 'noop', step: 's', input: {} },
      { timeoutMs: 10_000 },
    );
    if (i >= 50) times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  await dispatcher.stop();
  await worker.stop();
  return summarize(name, times);
}

/** Sequential POSTs of a small JSON body to a bare `node:http` server answering JSON. */
export async function httpLatency(samples: number): Promise<LatencyResult> {
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
  const once = () =>
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
    });
  const times: number[] = [];
  for (let i = 0; i < samples + 50; i++) {
    const start = process.hrtime.bigint();
    await once();
    if (i >= 50) times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  agent.destroy();
  await new Promise((resolve) => server.close(resolve));
  return summarize('bare node:http round trip (limit)', times);
}
