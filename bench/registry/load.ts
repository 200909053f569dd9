/** Load generation and reporting of the registry benchmark (`http-load.ts`, 64 connections). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { httpLoad, requestBytes, type HttpLoadResult } from '../http-load.js';

/** One measured HTTP case. */
export interface LoadResult {
  store: string;
  name: string;
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
  /** Requests/s as a share of the bare route's in the same run. */
  ofBare: number | null;
  target: string;
  /** The server's CPU per request (µs, median of rounds): all threads, and the event loop's. */
  cpuUs?: number;
  mainCpuUs?: number;
  /** PostgreSQL: its processes' CPU per request (µs, median of rounds). */
  dbCpuUs?: number;
  /** The load generator's own CPU per request (µs, median of rounds), on the same cores. */
  clientCpuUs?: number;
  /** Over rounds: the lowest and highest req/s and p99 (the row holds the medians). */
  range?: { requestsPerSec: [number, number]; p99Ms: [number, number] };
}

/** Each path list's requests, built once (the typed mix has 200,000). */
const built = new WeakMap<readonly string[], Buffer[]>();

/** Loads `url` from `connections` sockets, each request taking the next path from `paths`. */
export async function load(
  url: string,
  paths: readonly string[],
  seconds: number,
  connections = 64,
): Promise<HttpLoadResult> {
  const requests = built.get(paths) ?? paths.map((path) => requestBytes('GET', path));
  built.set(paths, requests);
  let next = 0;
  return httpLoad(url, () => requests[next++ % requests.length]!, seconds, connections);
}

/** Percentile of a sorted list of numbers. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** Prints the table of HTTP results. */
export function printLoadTable(title: string, rows: readonly LoadResult[]): void {
  const header = [
    'store',
    'case',
    'req/s',
    'p50 ms',
    'p99 ms',
    rows.some((r) => r.dbCpuUs !== undefined) ? 'CPU µs/req (loop) + db' : 'CPU µs/req (loop)',
    'client µs/req',
    '× bare',
    'errors',
    'target',
  ];
  const rate = (n: number) => Math.round(n).toLocaleString('en-US');
  const cells = rows.map((r) => [
    r.store,
    r.name,
    `${rate(r.requestsPerSec)}${r.range ? ` [${r.range.requestsPerSec.map(rate).join('–')}]` : ''}`,
    r.p50Ms.toFixed(2),
    `${r.p99Ms.toFixed(2)}${r.range ? ` [${r.range.p99Ms.map((n) => n.toFixed(0)).join('–')}]` : ''}`,
    r.cpuUs === undefined
      ? '-'
      : `${Math.round(r.cpuUs)} (${Math.round(r.mainCpuUs ?? 0)})${
          r.dbCpuUs === undefined ? '' : ` + ${Math.round(r.dbCpuUs)}`
        }`,
    r.clientCpuUs === undefined ? '-' : String(Math.round(r.clientCpuUs)),
    r.ofBare === null ? '-' : r.ofBare.toFixed(2),
    String(r.errors + r.non2xx),
    r.target,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: readonly string[]) =>
    c.map((x, i) => (i < 2 ? x.padEnd(widths[i]!) : x.padStart(widths[i]!))).join('  ');
  console.log(`\n${title}`);
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const c of cells) console.log(line(c));
}

/** Writes `bench/results/registry.json`. */
export function writeLoadResults(
  rows: readonly LoadResult[],
  shapes: readonly object[],
  settings: object,
): void {
  const directory = join(dirname(fileURLToPath(import.meta.url)), '..', 'results');
  mkdirSync(directory, { recursive: true });
  const document = {
    suite: 'registry',
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    settings,
    results: rows,
    shapes,
  };
  writeFileSync(join(directory, 'registry.json'), `${JSON.stringify(document, null, 2)}\n`);
}
