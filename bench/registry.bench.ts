/**
 * Registry under load: 10,000 published plugins; search and detail under 64
 * concurrent connections (`http-load.ts`) next to a bare Fastify route returning a constant on the
 * same server (the limit), with the answer cache on (default) and off; search both over a fixed
 * set of ~100 queries (each visited once beforehand) and over a typed mix of ~1,300 queries with
 * Zipf popularity that the server meets for the first time; the same mix with detail pages
 * and counted installs (schema downloads) among the searches; publish latency. On
 * SQLite, and on PostgreSQL when WEFT_TEST_DATABASE_URL is set. The server runs in a child
 * process so the load generator does not share its event loop.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  load,
  percentile,
  printLoadTable,
  writeLoadResults,
  type LoadResult,
} from './registry/load.js';
import { searchMix, searchQueries, seededDefinition, seededSlugs } from './registry/seed.js';
import { measureShapes, printShapes, type ShapeResult } from './registry/shapes.js';
import { postgresCpuMeter, processCpuMs } from './registry/cpu.js';
import { shuffler } from './harness.js';
import { dropTestSchema, openStore, type StoreOptions } from '@weft/store';

const PLUGINS = Number(process.env['WEFT_BENCH_PLUGINS'] ?? 10_000);
/** Seconds per case, split over the rounds. */
const SECONDS = Number(process.env['WEFT_BENCH_SECONDS'] ?? 15);
const ROUNDS = Number(process.env['WEFT_BENCH_ROUNDS'] ?? 5);
const FIXED_ORDER = process.env['WEFT_BENCH_FIXED_ORDER'] === '1';
const PUBLISHES = 200;
/** Calls of each search shape per round, measured on the store directly. */
const SHAPE_CALLS = Number(process.env['WEFT_BENCH_SHAPE_CALLS'] ?? 20);
const serverScript = fileURLToPath(new URL('./registry/server.ts', import.meta.url));

interface Started {
  child: ChildProcess;
  url: string;
  apiKey: string;
}

function startChild(config: object): Promise<Started> {
  const child = fork(serverScript, [JSON.stringify(config)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve({ child, ...(m as { url: string; apiKey: string }) }));
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
}

async function stopChild({ child }: Started): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.send('stop');
  await exited;
}

/** Requests every path once, 64 at a time (fills the answer cache when it is on). */
async function visitAll(url: string, paths: readonly string[]): Promise<void> {
  for (let i = 0; i < paths.length; i += 64) {
    await Promise.all(
      paths.slice(i, i + 64).map(async (path) => {
        const response = await fetch(`${url}${path}`);
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
      }),
    );
  }
}

async function publishLatency(started: Started): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < PUBLISHES; i++) {
    const definition = {
      ...seededDefinition(PLUGINS + i),
      slug: `bench-publish-${Date.now()}-${i}`,
    };
    const body = JSON.stringify(definition);
    const start = process.hrtime.bigint();
    const response = await fetch(`${started.url}/plugins`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${started.apiKey}` },
      body,
    });
    await response.arrayBuffer();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (response.status !== 201) throw new Error(`publish answered ${response.status}`);
  }
  return times.sort((a, b) => a - b);
}

/**
 * The indexes 0..n-1 in an order of their own for every round: each case follows each other
 * case (and comes first) equally often, so that none always pays for what the same predecessor
 * left behind (a GC, cache entries expiring, sockets closing) or always finds the machine idle.
 * A fixed seed keeps runs comparable; `WEFT_BENCH_FIXED_ORDER=1` keeps the table's order.
 */
function orders(n: number, count: number): number[][] {
  const shuffle = shuffler(32);
  return Array.from({ length: count }, () => {
    const order = Array.from({ length: n }, (_, k) => k);
    return FIXED_ORDER ? order : shuffle(order);
  });
}

/** One measured case: paths requested from one server, and the target it is held to. */
interface Case {
  name: string;
  cache: 'cache on' | 'cache off';
  started: Started;
  paths: readonly string[];
  /** The target's text for a result ('' for the limit itself). */
  target?: (r: Measured) => string;
}

type Measured = Awaited<ReturnType<typeof load>> & {
  /**
   * The server's CPU per request, µs: all its threads, and its event loop's thread alone; on
   * PostgreSQL, also its processes' (`db`).
   */
  cpu?: { process: number; main: number; db?: number };
};

/**
 * {@link load} with the server's CPU per request and, on PostgreSQL (whose work is in processes
 * of its own), the database's (Linux: read from /proc).
 */
async function measured(
  started: Started,
  paths: readonly string[],
  seconds: number,
  store: string,
) {
  const pid = started.child.pid!;
  const before = processCpuMs(pid);
  const database = store === 'postgres' ? postgresCpuMeter() : undefined;
  const result: Measured = await load(started.url, paths, seconds);
  const after = processCpuMs(pid);
  const databaseMs = database?.();
  const requests = result.requestsPerSec * seconds;
  const perRequest = (ms: number) => (ms * 1000) / requests;
  if (before && after && requests > 0) {
    result.cpu = {
      process: perRequest(after.process - before.process),
      main: perRequest(after.main - before.main),
      ...(databaseMs !== undefined ? { db: perRequest(databaseMs) } : {}),
    };
  }
  return result;
}

const median = (sorted: readonly number[]) => sorted[Math.floor(sorted.length / 2)]!;

/** The rounds of one case: medians, with the min and max of req/s and p99. */
function summarise(
  rounds: readonly Measured[],
): Omit<Measured, 'cpu'> &
  Pick<LoadResult, 'cpuUs' | 'mainCpuUs' | 'dbCpuUs' | 'clientCpuUs'> &
  Required<Pick<LoadResult, 'range'>> {
  const of = (pick: (m: Measured) => number) => rounds.map(pick).sort((a, b) => a - b);
  const rps = of((m) => m.requestsPerSec);
  const p99 = of((m) => m.p99Ms);
  return {
    requestsPerSec: median(rps),
    ...(rounds.every((m) => m.cpu) ? { cpuUs: median(of((m) => m.cpu!.process)) } : {}),
    clientCpuUs: median(of((m) => m.clientCpuUs)),
    ...(rounds.every((m) => m.cpu) ? { mainCpuUs: median(of((m) => m.cpu!.main)) } : {}),
    ...(rounds.every((m) => m.cpu?.db !== undefined)
      ? { dbCpuUs: median(of((m) => m.cpu!.db!)) }
      : {}),
    p50Ms: median(of((m) => m.p50Ms)),
    p99Ms: median(p99),
    errors: rounds.reduce((sum, m) => sum + m.errors, 0),
    non2xx: rounds.reduce((sum, m) => sum + m.non2xx, 0),
    range: { requestsPerSec: [rps[0]!, rps.at(-1)!], p99Ms: [p99[0]!, p99.at(-1)!] },
  };
}

/** Issue 32's targets: cache off ≥ 5,000/s with p99 < 20 ms; cache on p99 < 10 ms. */
const searchTarget = (cache: Case['cache']) => (r: Measured) => {
  const p99 = cache === 'cache on' ? 10 : 20;
  return `≥ 5,000/s, p99 < ${p99} ms ${r.requestsPerSec >= 5000 && r.p99Ms < p99 ? 'ok' : 'MISSED'}`;
};

/**
 * Both servers of a store (answer cache on, and off) run side by side on the same data, and
 * every case of both is measured once per round, the cases of a round in a shuffled order.
 */
async function measureStore(
  store: string,
  config: Record<string, unknown>,
  options: StoreOptions,
  shapes: ShapeResult[],
): Promise<LoadResult[]> {
  const rows: LoadResult[] = [];
  const slugs = seededSlugs(PLUGINS);
  const detailPaths = Array.from(
    { length: 5000 },
    (_, i) => `/plugins/${slugs[(i * 7919) % slugs.length]}`,
  );
  const searchPaths = searchQueries().map((q) => `/plugins/search?q=${encodeURIComponent(q)}`);
  const mixPaths = searchMix(200_000);
  // What a registry in use serves: searches, detail pages and installs (schema downloads,
  // each one counted), 8 : 1 : 1.
  const trafficPaths = mixPaths.map((path, i) =>
    i % 10 === 8
      ? detailPaths[i % detailPaths.length]!
      : i % 10 === 9
        ? `/plugins/${slugs[(i * 104_729) % slugs.length]}/1.0.0/schema`
        : path,
  );
  const seedStart = Date.now();
  // `undefined`: the server's default cache; 0: no cache, every answer read from the database.
  const on = await startChild({ ...config, seed: PLUGINS });
  console.log(
    `${store}: ${PLUGINS} plugins ready in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`,
  );
  const off = await startChild({ ...config, seed: PLUGINS, cacheTtlMs: 0 });
  // Each query shape alone, on the store itself, before any load.
  const direct = await openStore(options);
  try {
    shapes.push(...(await measureShapes(store, direct.registry, ROUNDS, SHAPE_CALLS)));
  } finally {
    await direct.registry.close();
    await direct.executions.close();
  }
  const cases: Case[] = [];
  for (const [cache, started] of [
    ['cache on', on],
    ['cache off', off],
  ] as const) {
    // Warm-up: JIT, connections, and (cache on) one visit of every path measured below.
    await load(started.url, ['/bare', ...detailPaths.slice(0, 200), ...searchPaths], 2);
    await visitAll(started.url, [...detailPaths, ...searchPaths]);
    cases.push(
      { name: 'bare route', cache, started, paths: ['/bare'] },
      { name: 'detail', cache, started, paths: detailPaths },
      { name: 'search', cache, started, paths: searchPaths, target: searchTarget(cache) },
      // Not visited beforehand: each distinct query's first request reads the database.
      { name: 'search, typed mix', cache, started, paths: mixPaths, target: searchTarget(cache) },
      {
        name: 'search 8 : detail 1 : install 1',
        cache,
        started,
        paths: trafficPaths,
        target: searchTarget(cache),
      },
    );
  }
  const rounds = cases.map((): Measured[] => []);
  const seconds = Math.max(1, Math.round(SECONDS / ROUNDS));
  for (const order of orders(cases.length, ROUNDS)) {
    for (const k of order)
      rounds[k]!.push(await measured(cases[k]!.started, cases[k]!.paths, seconds, store));
  }
  const results = rounds.map(summarise);
  const bare = (cache: string) =>
    results[cases.findIndex((c) => c.cache === cache && c.name === 'bare route')]!;
  for (const [k, c] of cases.entries()) {
    const result = results[k]!;
    const ofBare = result.requestsPerSec / bare(c.cache).requestsPerSec;
    const detailOk = ofBare >= 0.5 ? 'ok' : 'MISSED';
    rows.push({
      store,
      name: `${c.name} (${c.cache})`,
      ...result,
      ofBare,
      target: c.target?.(result) ?? (c.name === 'detail' ? `≥ 0.5× bare ${detailOk}` : 'limit'),
    });
  }
  const times = await publishLatency(on);
  const p50 = percentile(times, 50);
  rows.push({
    store,
    name: `publish (sequential, ${PUBLISHES})`,
    requestsPerSec: 1000 / (times.reduce((a, b) => a + b, 0) / times.length),
    p50Ms: p50,
    p99Ms: percentile(times, 99),
    errors: 0,
    non2xx: 0,
    ofBare: null,
    target: `p50 < 5 ms ${p50 < 5 ? 'ok' : 'MISSED'}`,
  });
  await stopChild(off);
  await stopChild(on);
  return rows;
}

/** Runs the registry benchmark on SQLite and, when configured, PostgreSQL. */
export async function run(): Promise<LoadResult[]> {
  const shapes: ShapeResult[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'weft-bench-'));
  const rows = await measureStore(
    'sqlite',
    { kind: 'sqlite', dataDir },
    { kind: 'sqlite', dataDir },
    shapes,
  );
  const url = process.env['WEFT_TEST_DATABASE_URL'];
  if (url) {
    const schema = `weft_bench_${process.pid}`;
    try {
      rows.push(
        ...(await measureStore(
          'postgres',
          { kind: 'postgres', dataDir: '', url, schema },
          { kind: 'postgres', url, schema, poolSize: 1 },
          shapes,
        )),
      );
    } finally {
      await dropTestSchema(url, schema);
    }
  } else {
    console.log('postgres: skipped (set WEFT_TEST_DATABASE_URL to measure it)');
  }
  printShapes(
    `registry search shapes: ${PLUGINS} plugins, the store called directly, one query at a ` +
      `time, ${SHAPE_CALLS} calls per shape and round, ${ROUNDS} rounds (shuffled); ` +
      'median [min–max] of rounds',
    shapes,
  );
  printLoadTable(
    `registry: ${PLUGINS} plugins, 64 connections, ${SECONDS} s per case over ${ROUNDS} ` +
      `rounds (${FIXED_ORDER ? 'fixed' : 'shuffled'} order); median round, [min–max] of rounds`,
    rows,
  );
  writeLoadResults(rows, shapes, {
    plugins: PLUGINS,
    seconds: SECONDS,
    rounds: ROUNDS,
    order: FIXED_ORDER ? 'fixed' : 'shuffled',
    connections: 64,
    publishes: PUBLISHES,
  });
  return rows;
}
