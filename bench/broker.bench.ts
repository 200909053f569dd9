/**
 * Broker-mode execution: throughput of no-op tasks (docs/protocol.md#broker-tasks) (published, consumed by the
 * task worker, result published and received) on the in-memory broker and on NATS JetStream,
 * next to BullMQ on the local Redis in the same run; and the dispatch latency in-memory and
 * through NATS next to a bare node:http round trip. NATS runs when WEFT_TEST_NATS_URL is set (a
 * namespace of its own, streams deleted after), BullMQ when Redis answers on 127.0.0.1:6379.
 * After a warm-up of each case, the jobs (and the latency samples) are split into
 * `WEFT_BENCH_ROUNDS` rounds; each round runs every case once, in a new seeded random order, and
 * the tables give min / median / max over the rounds.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemoryBroker, NatsBroker, testNamespace } from '@weft/broker';
import { dispatchCase, httpCase, timeCalls, type LatencyCase } from './broker/latency.js';
import { brokerThroughput, bullmqThroughput, type BrokerClients } from './broker/throughput.js';
import { shuffler } from './harness.js';

const JOBS = Number(process.env['WEFT_BENCH_JOBS'] ?? 50_000);
const SAMPLES = Number(process.env['WEFT_BENCH_SAMPLES'] ?? 2_000);
const ROUNDS = Math.max(1, Number(process.env['WEFT_BENCH_ROUNDS'] ?? 5));
const JOBS_PER_ROUND = Math.max(1, Math.round(JOBS / ROUNDS));
const SAMPLES_PER_ROUND = Math.max(1, Math.round(SAMPLES / ROUNDS));

/** A throughput case: `jobs` no-op tasks through one backend, jobs per second. */
interface ThroughputCase {
  readonly name: string;
  /** `label`: `warm` or the round (`r0`, `r1`...). */
  run(jobs: number, label: string): Promise<number>;
}

interface Spread {
  min: number;
  median: number;
  max: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function spread(values: readonly number[]): Spread {
  return { min: Math.min(...values), median: median(values), max: Math.max(...values) };
}

/** The value at quantile `q` of `values`, by the nearest rank. */
function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function table(title: string, header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
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

/** A weft broker case; each round a plugin (task subject, result group) of its own. */
function brokerCase(name: string, clients: BrokerClients, key: string): ThroughputCase {
  return {
    name,
    run: async (jobs, label) =>
      (await brokerThroughput(name, clients, jobs, `bench-${key}-${label}`)).jobsPerSec,
  };
}

/** Every case once per round in a new order; jobs per second of each, by case. */
async function measureThroughput(cases: ThroughputCase[]): Promise<Map<string, number[]>> {
  const rates = new Map(cases.map((c) => [c.name, [] as number[]]));
  const shuffle = shuffler(33);
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of shuffle(cases))
      rates.get(c.name)!.push(await c.run(JOBS_PER_ROUND, `r${round}`));
  }
  return rates;
}

/** Every case once per round in a new order; p50 of each round, and every sample, by case. */
async function measureLatency(
  cases: LatencyCase[],
): Promise<Map<string, { p50s: number[]; all: number[] }>> {
  const results = new Map(
    cases.map((c) => [c.name, { p50s: [] as number[], all: [] as number[] }]),
  );
  for (const c of cases) await timeCalls(c, 50);
  const shuffle = shuffler(34);
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of shuffle(cases)) {
      const times = await timeCalls(c, SAMPLES_PER_ROUND);
      const result = results.get(c.name)!;
      result.p50s.push(quantile(times, 0.5));
      result.all.push(...times);
    }
  }
  return results;
}

/** Runs the broker benchmark and prints its two tables. */
export async function run(): Promise<void> {
  const memory = new MemoryBroker();
  const memoryClients = { producer: memory, worker: memory.connect(), listener: memory.connect() };
  const throughputCases: ThroughputCase[] = [
    brokerCase('weft in-memory broker', memoryClients, 'mem'),
  ];
  const latencyCases: LatencyCase[] = [
    await httpCase(),
    await dispatchCase('dispatch in-memory', memoryClients, 'bench-lat-mem'),
  ];
  const url = process.env['WEFT_TEST_NATS_URL'];
  let nats: BrokerClients | undefined;
  if (url !== undefined) {
    nats = await natsClients(url, testNamespace());
    throughputCases.push(brokerCase('weft on NATS JetStream', nats, 'nats'));
    latencyCases.push(await dispatchCase('dispatch through NATS', nats, 'bench-lat-nats'));
  } else {
    console.log('NATS: skipped (set WEFT_TEST_NATS_URL to measure it)');
  }
  const bullName = 'BullMQ on Redis (no-op jobs)';
  const throughput: {
    name: string;
    jobs_per_round: number;
    rounds: number;
    jobs_per_sec: Spread;
  }[] = [];
  const latency: {
    name: string;
    samples: number;
    rounds: number;
    p50_ms: Spread;
    p99_ms: number;
    mean_ms: number;
  }[] = [];
  try {
    // Warm-up (and, for BullMQ, whether Redis answers).
    for (const c of throughputCases) await c.run(5_000, 'warm');
    try {
      await bullmqThroughput(5_000);
      throughputCases.push({
        name: bullName,
        run: async (jobs) => (await bullmqThroughput(jobs)).jobsPerSec,
      });
    } catch (error) {
      console.log(`BullMQ: skipped (${(error as Error).message})`);
    }
    for (const [name, rates] of await measureThroughput(throughputCases))
      throughput.push({
        name,
        jobs_per_round: JOBS_PER_ROUND,
        rounds: ROUNDS,
        jobs_per_sec: spread(rates),
      });
    for (const [name, { p50s, all }] of await measureLatency(latencyCases))
      latency.push({
        name,
        samples: all.length,
        rounds: ROUNDS,
        p50_ms: spread(p50s),
        p99_ms: quantile(all, 0.99),
        mean_ms: all.reduce((a, b) => a + b, 0) / all.length,
      });
  } finally {
    for (const c of latencyCases) await c.close();
    if (nats) {
      await (nats.producer as NatsBroker).deleteNamespace();
      await closeAll(nats);
    }
  }
  const bull = throughput.find((r) => r.name === bullName);
  const rate = (v: number) => Math.round(v).toLocaleString('en-US');
  table(
    `broker-mode throughput: ${JOBS_PER_ROUND.toLocaleString('en-US')} no-op tasks a round, ` +
      `results received, ${ROUNDS} rounds in a shuffled order (jobs/s min / median / max)`,
    ['case', 'min', 'median', 'max', '× BullMQ', 'target'],
    throughput.map((r) => {
      const ratio = bull === undefined ? null : r.jobs_per_sec.median / bull.jobs_per_sec.median;
      const isWeft = r !== bull;
      return [
        r.name,
        rate(r.jobs_per_sec.min),
        rate(r.jobs_per_sec.median),
        rate(r.jobs_per_sec.max),
        ratio === null ? '-' : `${ratio.toFixed(2)}×`,
        isWeft && ratio !== null ? `≥ 1× BullMQ ${ratio >= 1 ? 'ok' : 'MISSED'}` : '',
      ];
    }),
  );
  const http = latency.find((r) => r.name.startsWith('bare'));
  table(
    `dispatch latency: ${SAMPLES_PER_ROUND.toLocaleString('en-US')} sequential calls a round, ` +
      `${ROUNDS} rounds in a shuffled order (p50 of a round min / median / max; p99, mean of all)`,
    ['case', 'p50 min', 'p50 median', 'p50 max', 'p99 ms', 'mean ms', 'p50 × http'],
    latency.map((r) => [
      r.name,
      r.p50_ms.min.toFixed(3),
      r.p50_ms.median.toFixed(3),
      r.p50_ms.max.toFixed(3),
      r.p99_ms.toFixed(3),
      r.mean_ms.toFixed(3),
      http === undefined ? '-' : `${(r.p50_ms.median / http.p50_ms.median).toFixed(2)}×`,
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
    rounds: ROUNDS,
    throughput,
    latency,
  };
  writeFileSync(join(directory, 'broker.json'), `${JSON.stringify(document, null, 2)}\n`);
  await memory.close();
}
