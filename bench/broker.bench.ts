/**
 * Broker-mode execution: throughput of no-op tasks (docs/protocol.md#broker-tasks) (published, consumed by the
 * task worker, result published and received) on the in-memory broker and on NATS JetStream,
 * next to BullMQ on the local Redis in the same run; and the dispatch latency through NATS
 * next to a bare node:http round trip. NATS runs when WEFT_TEST_NATS_URL is set (a namespace of
 * its own, streams deleted after), BullMQ when Redis answers on 127.0.0.1:6379.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemoryBroker, NatsBroker, testNamespace } from '@weft/broker';
import { dispatchLatency, httpLatency, type LatencyResult } from './broker/latency.js';
import {
  brokerThroughput,
  bullmqThroughput,
  type BrokerClients,
  type ThroughputResult,
} from './broker/throughput.js';

const JOBS = Number(process.env['WEFT_BENCH_JOBS'] ?? 50_000);
const SAMPLES = Number(process.env['WEFT_BENCH_SAMPLES'] ?? 2_000);

function table(title: string, header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(`\n${title}`);
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
}

async function natsClients(url: string, namespace: string): Promise<BrokerClients> {
  const options = { servers: [url], namespace, maxAgeMs: 600_000 };
  const [producer, worker, listener] = await Promise.all([
    NatsBroker.connect(options),
    NatsBroker.connect(options),
    NatsBroker.connect(options),
  ]);
  return { producer, worker, listener };
}

async function closeAll(clients: BrokerClients): Promise<void> {
  for (const client of Object.values(clients)) await client.close();
}

/** Runs the broker benchmark and prints its two tables. */
export async function run(): Promise<void> {
  const throughput: ThroughputResult[] = [];
  const latency: LatencyResult[] = [];
  const memory = new MemoryBroker();
  const memoryClients = { producer: memory, worker: memory.connect(), listener: memory.connect() };
  await brokerThroughput('warm-up', memoryClients, 5_000, 'bench-warm');
  throughput.push(
    await brokerThroughput('weft in-memory broker', memoryClients, JOBS, 'bench-mem'),
  );

  const url = process.env['WEFT_TEST_NATS_URL'];
  if (url !== undefined) {
    const namespace = testNamespace();
    const clients = await natsClients(url, namespace);
    try {
      await brokerThroughput('warm-up', clients, 5_000, 'bench-warm');
      throughput.push(
        await brokerThroughput('weft on NATS JetStream', clients, JOBS, 'bench-nats'),
      );
      latency.push(await httpLatency(SAMPLES));
      latency.push(await dispatchLatency('dispatch through NATS', clients, SAMPLES, 'bench-lat'));
      latency.push(
        await dispatchLatency('dispatch in-memory', memoryClients, SAMPLES, 'bench-lat'),
      );
    } finally {
      await (clients.producer as NatsBroker).deleteNamespace();
      await closeAll(clients);
    }
  } else {
    console.log('NATS: skipped (set WEFT_TEST_NATS_URL to measure it)');
  }
  try {
    await bullmqThroughput(5_000);
    throughput.push(await bullmqThroughput(JOBS));
  } catch (error) {
    console.log(`BullMQ: skipped (${(error as Error).message})`);
  }
  const bull = throughput.find((r) => r.name.startsWith('BullMQ'));
  table(
    `broker-mode throughput: ${JOBS.toLocaleString('en-US')} no-op tasks, results received`,
    ['case', 'jobs', 'seconds', 'jobs/s', '× BullMQ', 'target'],
    throughput.map((r) => {
      const ratio = bull === undefined ? null : r.jobsPerSec / bull.jobsPerSec;
      const isWeft = r !== bull;
      return [
        r.name,
        r.jobs.toLocaleString('en-US'),
        r.seconds.toFixed(2),
        Math.round(r.jobsPerSec).toLocaleString('en-US'),
        ratio === null ? '-' : `${ratio.toFixed(2)}×`,
        isWeft && ratio !== null ? `≥ 1× BullMQ ${ratio >= 1 ? 'ok' : 'MISSED'}` : '',
      ];
    }),
  );
  const http = latency.find((r) => r.name.startsWith('bare'));
  table(
    `dispatch latency: ${SAMPLES.toLocaleString('en-US')} sequential calls`,
    ['case', 'p50 ms', 'p99 ms', 'mean ms', 'p50 × http'],
    latency.map((r) => [
      r.name,
      r.p50Ms.toFixed(3),
      r.p99Ms.toFixed(3),
      r.meanMs.toFixed(3),
      http === undefined ? '-' : `${(r.p50Ms / http.p50Ms).toFixed(2)}×`,
    ]),
  );
  const directory = join(dirname(fileURLToPath(import.meta.url)), 'results');
  mkdirSync(directory, { recursive: true });
  const document = {
    suite: 'broker',
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    throughput,
    latency,
  };
  writeFileSync(join(directory, 'broker.json'), `${JSON.stringify(document, null, 2)}\n`);
  await memory.close();
}
