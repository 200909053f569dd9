/**
 * A small benchmark harness: warm-up, several timed rounds per case (interleaved in a new seeded
 * order each round, so drift in machine speed hits every case alike), median, min and max
 * nanoseconds per operation, an aligned table with
 * the ratio to the physical limit, and JSON results in `bench/results/<suite>.json`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One contestant: a function doing one operation per call. */
export interface BenchCase {
  readonly name: string;
  readonly fn: () => unknown;
  /** Marks the physical limit the others are compared to (at most one per suite). */
  readonly limit?: boolean;
  /** Budget in nanoseconds per operation; shown in the table and checked by callers. */
  readonly targetNs?: number;
}

/** How long to warm up and measure. */
export interface BenchOptions {
  /** Warm-up time per case, in milliseconds (default 300). */
  readonly warmupMs?: number;
  /** Number of timed rounds per case (default 7). */
  readonly rounds?: number;
  /** Approximate duration of one timed round, in milliseconds (default 150). */
  readonly roundMs?: number;
}

/** Measured result of one case. */
export interface BenchResult {
  readonly name: string;
  readonly nsPerOp: number;
  readonly opsPerSec: number;
  /** `nsPerOp` divided by the limit case's (1 for the limit itself; null without a limit). */
  readonly ratioToLimit: number | null;
  readonly targetNs: number | null;
  /** ns/op of every round, in the order measured. */
  readonly roundsNs: readonly number[];
}

/** Keeps results observable so the optimiser cannot drop the work. */
export let sink: unknown;

function timeLoop(fn: () => unknown, iterations: number): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) sink = fn();
  return Number(process.hrtime.bigint() - start);
}

/** Iterations that take about `ms` milliseconds. */
function calibrate(fn: () => unknown, ms: number): number {
  let iterations = 1_000;
  for (;;) {
    const elapsed = timeLoop(fn, iterations);
    if (elapsed >= ms * 1e6 * 0.25 || iterations >= 1e9) {
      return Math.max(1, Math.round((iterations * ms * 1e6) / Math.max(elapsed, 1)));
    }
    iterations *= 4;
  }
}

/** Shuffles `items` in place with a seeded generator (mulberry32), for a repeatable order. */
export function shuffler(seed: number): <T>(items: T[]) => T[] {
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return <T>(items: T[]) => {
    for (let j = items.length - 1; j > 0; j--) {
      const k = Math.floor(random() * (j + 1));
      [items[j], items[k]] = [items[k]!, items[j]!];
    }
    return items;
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Runs a suite, prints its table, writes `bench/results/<suite>.json` and returns the results. */
export function runSuite(
  suite: string,
  cases: readonly BenchCase[],
  options: BenchOptions = {},
): BenchResult[] {
  const { warmupMs = 300, rounds = 7, roundMs = 150 } = options;
  // Warm every case first, round-robin, so each is measured through the same (polymorphic) call site.
  const iterations = cases.map((c) => calibrate(c.fn, warmupMs / 3));
  for (const [i, c] of cases.entries()) timeLoop(c.fn, iterations[i]! * 2);
  const perRound = cases.map((c) => calibrate(c.fn, roundMs));
  const samples: number[][] = cases.map(() => []);
  // A new order each round: in a fixed one, each case always follows the same other and pays for
  // what it left behind (garbage, cold caches).
  const shuffle = shuffler(7);
  const order = cases.map((_, i) => i);
  for (let round = 0; round < rounds; round++) {
    for (const i of shuffle(order))
      samples[i]!.push(timeLoop(cases[i]!.fn, perRound[i]!) / perRound[i]!);
  }
  const limitIndex = cases.findIndex((c) => c.limit === true);
  const limitNs = limitIndex < 0 ? null : median(samples[limitIndex]!);
  const results = cases.map((c, i): BenchResult => {
    const nsPerOp = median(samples[i]!);
    return {
      name: c.name,
      nsPerOp,
      opsPerSec: 1e9 / nsPerOp,
      ratioToLimit: limitNs === null ? null : nsPerOp / limitNs,
      targetNs: c.targetNs ?? null,
      roundsNs: samples[i]!,
    };
  });
  printTable(suite, results);
  writeResults(suite, results, { warmupMs, rounds, roundMs });
  return results;
}

export function printTable(suite: string, results: readonly BenchResult[]): void {
  const header = ['case', 'ns/op', 'min', 'max', 'ops/s', '× limit', 'target'];
  const rows = results.map((r) => [
    r.name,
    r.nsPerOp.toFixed(1),
    Math.min(...r.roundsNs).toFixed(1),
    Math.max(...r.roundsNs).toFixed(1),
    Math.round(r.opsPerSec).toLocaleString('en-US'),
    r.ratioToLimit === null ? '-' : `${r.ratioToLimit.toFixed(2)}×`,
    r.targetNs === null ? '' : `≤ ${r.targetNs} ns ${r.nsPerOp <= r.targetNs ? 'ok' : 'MISSED'}`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join('  ');
  console.log(`\n${suite}`);
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
}

export function writeResults(
  suite: string,
  results: readonly BenchResult[],
  options: BenchOptions,
): void {
  const directory = join(dirname(fileURLToPath(import.meta.url)), 'results');
  mkdirSync(directory, { recursive: true });
  const document = {
    suite,
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    options,
    results,
  };
  writeFileSync(join(directory, `${suite}.json`), `${JSON.stringify(document, null, 2)}\n`);
}
