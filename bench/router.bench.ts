/**
 * Router overhead: the same call (docs/protocol.md#action-calls) to a connector service, measured as a bare
 * node:http round trip (the physical limit: no work at all), a direct call to the connector
 * service, the call through a naive node:http proxy (what a user would write instead), and the
 * call through weft's router (with health checks running every second). Each sequentially (one
 * keep-alive connection, latency percentiles) and under 64 concurrent connections (autocannon).
 * Every server runs in its own child process; the cases are interleaved (request by request
 * sequentially, round by round under load, in a shuffled order) so that a busy machine slows them
 * alike. Each server's CPU time while idle is read first (its timers share the core). With
 * `taskset` and two cores or more, the load generator (this process) is pinned to core 0 and
 * every server to core 1, so that the router (or proxy) and the connector service share one core
 * as they would in production, and the load generator does not steal from them. Targets (issue
 * 20): the router serves at least as many requests/s as the keep-alive naive proxy under 64
 * connections, and adds no more latency than it at p50 over the direct call.
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Client } from 'undici';
import { shuffler } from './harness.js';

const SECONDS = Number(process.env['WEFT_BENCH_SECONDS'] ?? 5);
const SEQUENTIAL = Number(process.env['WEFT_BENCH_SEQUENTIAL'] ?? 5000);
const ROUNDS = Number(process.env['WEFT_BENCH_ROUNDS'] ?? 3);
/** `WEFT_BENCH_FIXED_ORDER=1`: the cases always in the table's order (to compare with shuffled). */
const FIXED_ORDER = process.env['WEFT_BENCH_FIXED_ORDER'] === '1';
/** Seconds every server sits idle while its CPU time is read (timers, polling). */
const IDLE_SECONDS = Number(process.env['WEFT_BENCH_IDLE_SECONDS'] ?? 5);
const BODY = JSON.stringify({ action: 'bench.echo', input: { n: 1 } });
const script = fileURLToPath(new URL('./router/server.ts', import.meta.url));

interface Child {
  child: ChildProcess;
  url: string;
  /** An API key of the `router` child. */
  key?: string;
}

/** Pins a process to one core with taskset; false when it cannot (no taskset, one core). */
function pin(pid: number, core: number): boolean {
  if (cpus().length < 2) return false;
  try {
    execFileSync('taskset', ['-a', '-p', '-c', String(core), String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

let pinned = false;

/** A case: where requests go and the headers they carry beyond the content type. */
interface Target {
  url: string;
  path: string;
  headers?: Record<string, string>;
}

/** The router token of bench/router/server.ts. */
const ROUTER_TOKEN = 'bench-router-token-0123456789';

function start(kind: string, target?: string): Promise<Child> {
  const child = fork(script, [kind, ...(target ? [target] : [])], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  if (pinned) pin(child.pid!, 1);
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve({ child, ...(m as { url: string; key?: string }) }));
    child.once('exit', (code) => reject(new Error(`bench server ${kind} exited with ${code}`)));
  });
}

/** CPU time (user + system) the child has used so far, in µs. */
function cpuOf({ child }: Child): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (m: unknown) => {
      if (typeof m === 'object' && m !== null && 'cpuUs' in m) {
        child.off('message', onMessage);
        resolve((m as { cpuUs: number }).cpuUs);
      }
    };
    child.on('message', onMessage);
    child.send('cpu');
  });
}

async function stopChild({ child }: Child): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.send('stop');
  await exited;
}

interface Row {
  name: string;
  /** CPU time the serving process spends with no request, in ms per second (its timers). */
  idleCpuMsPerS: number;
  /** CPU time the serving process spent per sequential request (the proxy's or router's own work). */
  cpuUsPerRequest: number;
  seqP50Us: number;
  seqP99Us: number;
  seqRps: number;
  c64Rps: number;
  c64P50Ms: number;
  c64P99Ms: number;
  errors: number;
}

/** One request on `client`; throws on a non-200 answer. */
async function once(client: Client, { path, headers }: Target): Promise<void> {
  const { statusCode, body } = await client.request({
    path,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: BODY,
  });
  await body.text();
  if (statusCode !== 200) throw new Error(`${path} answered ${statusCode}`);
}

/**
 * The indexes 0..n-1 in an order of their own for every iteration `i`: each case follows each
 * other case (and comes first) equally often, so that none always pays for what the same
 * predecessor left behind on the shared core (a GC, a socket still being closed) or always
 * finds it idle. A fixed seed keeps runs comparable.
 */
function orders(n: number, count: number): number[][] {
  const shuffle = shuffler(20);
  return Array.from({ length: count }, () => {
    const order = Array.from({ length: n }, (_, k) => k);
    return FIXED_ORDER ? order : shuffle(order);
  });
}

/**
 * One keep-alive connection per case, one request at a time, the cases interleaved request by
 * request (in a shuffled order each time: see {@link orders}) so that every case sees the same
 * machine load: latency in µs.
 */
async function sequential(targets: Target[]) {
  const clients = targets.map((t) => new Client(t.url, { pipelining: 1 }));
  for (let i = 0; i < 500; i++) for (const [k, t] of targets.entries()) await once(clients[k]!, t);
  const times = targets.map((): number[] => []);
  for (const order of orders(targets.length, SEQUENTIAL)) {
    for (const k of order) {
      const start = process.hrtime.bigint();
      await once(clients[k]!, targets[k]!);
      times[k]!.push(Number(process.hrtime.bigint() - start) / 1000);
    }
  }
  await Promise.all(clients.map((c) => c.close()));
  return times.map((list) => {
    list.sort((a, b) => a - b);
    const at = (p: number) => list[Math.min(list.length - 1, Math.floor(p * list.length))]!;
    const total = list.reduce((a, b) => a + b, 0) / 1e6;
    return { p50: at(0.5), p99: at(0.99), rps: list.length / total };
  });
}

async function concurrent({ url, path, headers }: Target, seconds: number) {
  const result = await autocannon({
    url: `${url}${path}`,
    connections: 64,
    duration: seconds,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: BODY,
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

/**
 * 64 connections, in ROUNDS rounds per case with the cases interleaved (each round in its own
 * order: see {@link orders}); the median round.
 */
async function concurrentRounds(targets: Target[]) {
  const rounds = targets.map((): Awaited<ReturnType<typeof concurrent>>[] => []);
  const seconds = Math.max(1, Math.round(SECONDS / ROUNDS));
  for (const order of orders(targets.length, ROUNDS)) {
    for (const k of order) rounds[k]!.push(await concurrent(targets[k]!, seconds));
  }
  return rounds.map((list) => {
    const sorted = [...list].sort((a, b) => a.rps - b.rps);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    return { ...median, errors: list.reduce((sum, x) => sum + x.errors, 0) };
  });
}

async function measure(cases: (Target & { name: string; child: Child })[]): Promise<Row[]> {
  // Startup work (the first health checks, compilation) settles first.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const idleBefore = await Promise.all(cases.map((c) => cpuOf(c.child)));
  await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
  const idleAfter = await Promise.all(cases.map((c) => cpuOf(c.child)));
  const cpuBefore = await Promise.all(cases.map((c) => cpuOf(c.child)));
  const seq = await sequential(cases);
  const cpuAfter = await Promise.all(cases.map((c) => cpuOf(c.child)));
  const requests = SEQUENTIAL + 500;
  const c64 = await concurrentRounds(cases);
  return cases.map((c, i) => ({
    name: c.name,
    idleCpuMsPerS: (idleAfter[i]! - idleBefore[i]!) / 1000 / IDLE_SECONDS,
    cpuUsPerRequest: (cpuAfter[i]! - cpuBefore[i]!) / requests,
    seqP50Us: seq[i]!.p50,
    seqP99Us: seq[i]!.p99,
    seqRps: seq[i]!.rps,
    c64Rps: c64[i]!.rps,
    c64P50Ms: c64[i]!.p50,
    c64P99Ms: c64[i]!.p99,
    errors: c64[i]!.errors,
  }));
}

function print(rows: Row[]): void {
  const header = [
    'case',
    'idle cpu ms/s',
    'cpu µs/req',
    'seq p50 µs',
    'seq p99 µs',
    'seq req/s',
    '64c req/s',
    '64c p50 ms',
    '64c p99 ms',
    'errors',
  ];
  const cells = rows.map((r) => [
    r.name,
    r.idleCpuMsPerS.toFixed(1),
    r.cpuUsPerRequest.toFixed(0),
    r.seqP50Us.toFixed(0),
    r.seqP99Us.toFixed(0),
    Math.round(r.seqRps).toLocaleString('en-US'),
    Math.round(r.c64Rps).toLocaleString('en-US'),
    r.c64P50Ms.toFixed(2),
    r.c64P99Ms.toFixed(2),
    String(r.errors),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: readonly string[]) =>
    c.map((x, i) => (i === 0 ? x.padEnd(widths[i]!) : x.padStart(widths[i]!))).join('  ');
  console.log(
    '\nrouter (one call (docs/protocol.md#action-calls); servers in child processes; cpu: of the serving process only)',
  );
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const c of cells) console.log(line(c));
}

/** Runs the suite, prints the table and the targets, writes `bench/results/router.json`. */
export async function run(): Promise<void> {
  pinned = pin(process.pid, 0);
  const bare = await start('bare');
  const service = await start('service');
  const proxy = await start('proxy', service.url);
  // One router process per case, so that each case's CPU time is its own.
  const router = await start('router', service.url);
  const keyed = await start('router', service.url);
  const open = await start('router-open', service.url);
  try {
    const rows = await measure([
      { name: 'bare node:http (limit)', url: bare.url, path: '/execute', child: bare },
      { name: 'direct to connector service', url: service.url, path: '/execute', child: service },
      { name: 'keep-alive naive proxy', url: proxy.url, path: '/execute', child: proxy },
      {
        name: 'weft router (router token)',
        url: router.url,
        path: '/execute',
        child: router,
        headers: { authorization: `Bearer ${ROUTER_TOKEN}` },
      },
      {
        name: 'weft router (API key)',
        url: keyed.url,
        path: '/execute',
        child: keyed,
        headers: { authorization: `Bearer ${keyed.key!}` },
      },
      { name: 'weft router (open execute)', url: open.url, path: '/execute', child: open },
    ]);
    print(rows);
    const [, direct, naive, routed, byKey, opened] = rows as [Row, Row, Row, Row, Row, Row];
    console.log(
      `credential check: router token ${(routed.seqP50Us - opened.seqP50Us).toFixed(0)} µs, API key ${(byKey.seqP50Us - opened.seqP50Us).toFixed(0)} µs at p50 over open execute; ` +
        `CPU per call ${(routed.cpuUsPerRequest - opened.cpuUsPerRequest).toFixed(0)} µs and ${(byKey.cpuUsPerRequest - opened.cpuUsPerRequest).toFixed(0)} µs`,
    );
    const added = routed.seqP50Us - direct.seqP50Us;
    const proxyAdded = naive.seqP50Us - direct.seqP50Us;
    const ratio = routed.c64Rps / naive.c64Rps;
    console.log(
      pinned
        ? 'load generator pinned to core 0, servers to core 1 (taskset)'
        : 'not pinned (no taskset or one core): numbers include the load generator competing',
    );
    console.log(
      `router adds ${added.toFixed(0)} µs at p50 over the direct call, the keep-alive naive proxy ${proxyAdded.toFixed(0)} µs ` +
        `(target: no more than the proxy: ${added <= proxyAdded ? 'ok' : 'MISSED'})`,
    );
    console.log(
      `CPU per call: router ${routed.cpuUsPerRequest.toFixed(0)} µs, naive proxy ${naive.cpuUsPerRequest.toFixed(0)} µs, connector service ${direct.cpuUsPerRequest.toFixed(0)} µs`,
    );
    console.log(
      `router serves ${ratio.toFixed(2)}× the keep-alive naive proxy's requests/s under 64 connections (target ≥ 1: ${ratio >= 1 ? 'ok' : 'MISSED'}); ` +
        `${((routed.c64Rps / direct.c64Rps) * 100).toFixed(0)}% of the direct call's`,
    );
    const directory = fileURLToPath(new URL('./results/', import.meta.url));
    mkdirSync(directory, { recursive: true });
    writeFileSync(
      `${directory}router.json`,
      `${JSON.stringify(
        {
          suite: 'router',
          date: new Date().toISOString(),
          node: process.version,
          cpu: cpus()[0]?.model ?? 'unknown',
          cores: cpus().length,
          settings: {
            seconds: SECONDS,
            rounds: ROUNDS,
            sequential: SEQUENTIAL,
            idleSeconds: IDLE_SECONDS,
            connections: 64,
            pinned,
            order: FIXED_ORDER ? 'fixed' : 'shuffled',
          },
          results: rows,
          addedP50Us: added,
          proxyAddedP50Us: proxyAdded,
          ratioToNaive: ratio,
        },
        null,
        2,
      )}\n`,
    );
  } finally {
    for (const child of [open, keyed, router, proxy, service, bare]) await stopChild(child);
  }
}
