/**
 * Scale-out: executions per second of a 5-step workflow on 1, 2 and 4
 * `weft server` replicas (child processes) on PostgreSQL + NATS JetStream, with plugin `count`
 * served by broker from a connector service process (`createConnectorService({ broker })`,
 * registered with `metadata.transport: "broker"`), next to one replica on SQLite with the
 * in-memory broker. Executions are submitted asynchronously (202, no `Prefer`) round-robin over
 * the replicas; the time runs until the store holds every one finished. Next to the physical
 * limit of the same run, a bare `node:http` round trip between two processes. The CPU columns
 * say which process was busy (in cores; this machine has the number of cores printed above the
 * table). PostgreSQL + NATS cases run when WEFT_TEST_DATABASE_URL and WEFT_TEST_NATS_URL are set.
 *
 * Rounds (`WEFT_BENCH_ROUNDS`, default 5): each case's executions (and the limit's seconds) are
 * split into rounds, each round submitted and waited for until finished, and the table gives the
 * min / median / max of executions/s over the rounds. The configurations are not shuffled round
 * by round as other suites' cases are: each is a set of processes to start (replicas, a connector
 * service, a schema and a NATS namespace of its own), and running them side by side to take turns
 * would leave the idle ones on the cores the busy one is measured on. So each runs alone, in the
 * order of the table, and the rounds are interleaved only within what is running.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { postgresNatsCluster, sqliteCluster, type Cluster } from './scale/cluster.js';
import { httpRoundTrips, submit, waitFinished } from './scale/load.js';
import { measureCpu, startChild, stopChild } from './scale/processes.js';
import { STEPS } from './scale/workload.js';

const N = Number(process.env['WEFT_BENCH_EXECUTIONS'] ?? 500);
const WARMUP = 50;
const ROUNDS = Math.max(1, Number(process.env['WEFT_BENCH_ROUNDS'] ?? 5));
const REPLICAS = (process.env['WEFT_BENCH_REPLICAS'] ?? '1,2,4').split(',').map(Number);
const databaseUrl = process.env['WEFT_TEST_DATABASE_URL'];
const natsUrl = process.env['WEFT_TEST_NATS_URL'];

interface Row {
  case: string;
  replicas: number | null;
  backend: string;
  executions: number;
  rounds: number;
  /** Wall time of the timed rounds together. */
  seconds: number;
  /** Per second, the median over the rounds. */
  perSecond: number;
  perSecondMin: number;
  perSecondMax: number;
  stepsPerSecond: number | null;
  submitSeconds: number | null;
  /** CPU used during the timed run, in cores, by group (replicas, service, postgres, ...). */
  cores: Record<string, number>;
}

/** Submits one execution to each replica until all accept (they know plugin `count`). */
async function untilReady(cluster: Cluster): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (const replica of cluster.replicas) {
    for (;;) {
      try {
        await submit([replica.url], cluster.auth, 1, 1);
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }
}

async function measureCluster(name: string, backend: string, cluster: Cluster): Promise<Row> {
  const urls = cluster.replicas.map((r) => r.url);
  await untilReady(cluster);
  await submit(urls, cluster.auth, WARMUP);
  const base = (await waitFinished(() => cluster.count(), WARMUP + urls.length, 60_000)).finished;
  const cpu = measureCpu({ ...cluster.groups, bench: () => [process.pid] });
  const perRound = Math.max(1, Math.round(N / ROUNDS));
  const rates: number[] = [];
  let seconds = 0;
  let submitSeconds = 0;
  let counts = { completed: 0, finished: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    await submit(urls, cluster.auth, perRound);
    const submitted = performance.now();
    counts = await waitFinished(() => cluster.count(), base + perRound * (round + 1), 120_000);
    const elapsed = (performance.now() - started) / 1000;
    rates.push(perRound / elapsed);
    seconds += elapsed;
    submitSeconds += (submitted - started) / 1000;
  }
  const cores = cpu();
  const failed = counts.finished - counts.completed;
  if (failed > 0) console.log(`${name}: ${failed} executions did not complete`);
  console.log(
    `${name}: ${perRound * ROUNDS} executions in ${ROUNDS} rounds, ${seconds.toFixed(2)} s`,
  );
  const perSecond = median(rates);
  return {
    case: name,
    replicas: urls.length,
    backend,
    executions: perRound * ROUNDS,
    rounds: ROUNDS,
    seconds,
    perSecond,
    perSecondMin: Math.min(...rates),
    perSecondMax: Math.max(...rates),
    stepsPerSecond: perSecond * STEPS,
    submitSeconds,
    cores,
  };
}

async function limitRow(): Promise<Row> {
  const bare = await startChild('bare-http.ts', {});
  try {
    await httpRoundTrips(bare.url, 0.5);
    // The bare server's CPU goes in the `replicas` column: it stands where a replica would.
    const cpu = measureCpu({ replicas: () => [bare.child.pid!], bench: () => [process.pid] });
    const rates: number[] = [];
    let requests = 0;
    let seconds = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const result = await httpRoundTrips(bare.url, 3 / ROUNDS);
      rates.push(result.perSecond);
      requests += result.requests;
      seconds += result.seconds;
    }
    return {
      case: 'limit: bare node:http round trip (requests/s)',
      replicas: null,
      backend: '-',
      executions: requests,
      rounds: ROUNDS,
      seconds,
      perSecond: median(rates),
      perSecondMin: Math.min(...rates),
      perSecondMax: Math.max(...rates),
      stepsPerSecond: null,
      submitSeconds: null,
      cores: cpu(),
    };
  } finally {
    await stopChild(bare.child);
  }
}

async function withCluster(open: () => Promise<Cluster>, body: (c: Cluster) => Promise<Row>) {
  const cluster = await open();
  try {
    return await body(cluster);
  } finally {
    await cluster.close();
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function printTable(rows: readonly Row[]): void {
  const groups = ['replicas', 'service', 'postgres', 'nats', 'bench', 'other', 'machine'];
  const header = ['case', 'replicas', 'store/broker', 'executions', 'seconds', 'per s median'];
  header.push('min', 'max', 'steps/s', 'submit s', ...groups.map((g) => `cpu ${g}`));
  const rate = (v: number) => Math.round(v).toLocaleString('en-US');
  const cells = rows.map((r) => [
    r.case,
    r.replicas === null ? '-' : String(r.replicas),
    r.backend,
    r.executions.toLocaleString('en-US'),
    r.seconds.toFixed(2),
    rate(r.perSecond),
    rate(r.perSecondMin),
    rate(r.perSecondMax),
    r.stepsPerSecond === null ? '-' : rate(r.stepsPerSecond),
    r.submitSeconds === null ? '-' : r.submitSeconds.toFixed(2),
    ...groups.map((g) => (r.cores[g] === undefined ? '-' : r.cores[g].toFixed(2))),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((row) => row[i]!.length)));
  const line = (row: readonly string[]) =>
    row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(
    `\nscale-out: ${N} executions of a ${STEPS}-step workflow, submitted async in ${ROUNDS} rounds (executions/s median, min, max over the rounds)`,
  );
  console.log(
    `(cpu: cores used during the timed run, of ${cpus().length}; limit row: replicas = the bare server)`,
  );
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of cells) console.log(line(row));
}

/** Runs the suite, prints its table and writes `bench/results/scale.json`. */
export async function run(): Promise<Row[]> {
  const rows: Row[] = [await limitRow()];
  rows.push(
    await withCluster(sqliteCluster, (c) => measureCluster('sqlite + memory', 'sqlite/memory', c)),
  );
  if (databaseUrl && natsUrl) {
    for (const n of REPLICAS) {
      rows.push(
        await withCluster(
          () => postgresNatsCluster(databaseUrl, natsUrl, n),
          (c) => measureCluster(`postgres + nats, ${n} replica${n > 1 ? 's' : ''}`, 'pg/nats', c),
        ),
      );
    }
  } else {
    console.log(
      'PostgreSQL + NATS cases skipped: set WEFT_TEST_DATABASE_URL and WEFT_TEST_NATS_URL',
    );
  }
  printTable(rows);
  const directory = join(dirname(fileURLToPath(import.meta.url)), 'results');
  mkdirSync(directory, { recursive: true });
  const document = {
    suite: 'scale',
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    executions: N,
    rounds: ROUNDS,
    rows,
  };
  writeFileSync(join(directory, 'scale.json'), `${JSON.stringify(document, null, 2)}\n`);
  return rows;
}
