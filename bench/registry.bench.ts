/**
 * Registry under load: 10,000 published plugins; search and detail under 64
 * concurrent connections (autocannon) next to a bare Fastify route returning a constant on the
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
import pg from 'pg';
import {
  load,
  percentile,
  printLoadTable,
  writeLoadResults,
  type LoadResult,
} from './registry/load.js';
import { searchMix, searchQueries, seededDefinition, seededSlugs } from './registry/seed.js';

const PLUGINS = Number(process.env['WEFT_BENCH_PLUGINS'] ?? 10_000);
const SECONDS = Number(process.env['WEFT_BENCH_SECONDS'] ?? 5);
const PUBLISHES = 200;
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

async function measureStore(store: string, config: Record<string, unknown>): Promise<LoadResult[]> {
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
  // `undefined`: the server's default cache; 0: no cache, every answer read from the database.
  for (const cacheTtlMs of [undefined, 0]) {
    const seedStart = Date.now();
    const started = await startChild({ ...config, seed: PLUGINS, cacheTtlMs });
    if (cacheTtlMs === undefined)
      console.log(
        `${store}: ${PLUGINS} plugins ready in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`,
      );
    const cache = cacheTtlMs === undefined ? 'cache on' : 'cache off';
    // Warm-up: JIT, connections, and (cache on) one visit of every path measured below.
    await load(started.url, ['/bare', ...detailPaths.slice(0, 200), ...searchPaths], 2);
    await visitAll(started.url, [...detailPaths, ...searchPaths]);
    const bare = await load(started.url, ['/bare'], SECONDS);
    rows.push({ store, name: `bare route (${cache})`, ...bare, ofBare: 1, target: 'limit' });
    const detail = await load(started.url, detailPaths, SECONDS);
    rows.push({
      store,
      name: `detail (${cache})`,
      ...detail,
      ofBare: detail.requestsPerSec / bare.requestsPerSec,
      target: `≥ 0.5× bare ${detail.requestsPerSec >= bare.requestsPerSec / 2 ? 'ok' : 'MISSED'}`,
    });
    const search = await load(started.url, searchPaths, SECONDS);
    const searchOk = search.requestsPerSec >= 5000 && search.p99Ms < 10;
    rows.push({
      store,
      name: `search (${cache})`,
      ...search,
      ofBare: search.requestsPerSec / bare.requestsPerSec,
      target: `≥ 5,000/s, p99 < 10 ms ${searchOk ? 'ok' : 'MISSED'}`,
    });
    // Not visited beforehand: each distinct query's first request reads the database.
    const mix = await load(started.url, mixPaths, SECONDS);
    const mixOk = mix.requestsPerSec >= 5000 && mix.p99Ms < 10;
    rows.push({
      store,
      name: `search, typed mix (${cache})`,
      ...mix,
      ofBare: mix.requestsPerSec / bare.requestsPerSec,
      target: `≥ 5,000/s, p99 < 10 ms ${mixOk ? 'ok' : 'MISSED'}`,
    });
    const traffic = await load(started.url, trafficPaths, SECONDS);
    const trafficOk = traffic.requestsPerSec >= 5000 && traffic.p99Ms < 10;
    rows.push({
      store,
      name: `search 8 : detail 1 : install 1 (${cache})`,
      ...traffic,
      ofBare: traffic.requestsPerSec / bare.requestsPerSec,
      target: `≥ 5,000/s, p99 < 10 ms ${trafficOk ? 'ok' : 'MISSED'}`,
    });
    if (cacheTtlMs === undefined) {
      const times = await publishLatency(started);
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
    }
    await stopChild(started);
  }
  return rows;
}

/** Runs the registry benchmark on SQLite and, when configured, PostgreSQL. */
export async function run(): Promise<LoadResult[]> {
  const rows = await measureStore('sqlite', {
    kind: 'sqlite',
    dataDir: mkdtempSync(join(tmpdir(), 'weft-bench-')),
  });
  const url = process.env['WEFT_TEST_DATABASE_URL'];
  if (url) {
    const schema = `weft_bench_${process.pid}`;
    try {
      rows.push(
        ...(await measureStore('postgres', { kind: 'postgres', dataDir: '', url, schema })),
      );
    } finally {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    }
  } else {
    console.log('postgres: skipped (set WEFT_TEST_DATABASE_URL to measure it)');
  }
  printLoadTable(`registry: ${PLUGINS} plugins, 64 connections, ${SECONDS} s per case`, rows);
  writeLoadResults(rows, {
    plugins: PLUGINS,
    seconds: SECONDS,
    connections: 64,
    publishes: PUBLISHES,
  });
  return rows;
}
