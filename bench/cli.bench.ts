/**
 * How fast the `weft` command starts: each command as a new process, next to a bare
 * `node -e 0` in the same run, in a new seeded random order each round (so drift in machine
 * speed hits every case alike). Median, min and max wall time per case; the ratio of the medians
 * to bare node is what the targets bound: `weft --version` ≤ 3×, `weft workflow --help` ≤ 4×,
 * `weft workflow validate examples/order-fulfilment.yaml` ≤ 5×, a one-step local run ≤ 8×.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { writeResults, type BenchResult } from './harness.js';

const ROUNDS = Number(process.env['WEFT_BENCH_ROUNDS'] ?? 11);
const root = fileURLToPath(new URL('..', import.meta.url));
const weft = fileURLToPath(new URL('../packages/cli/bin/weft.js', import.meta.url));

interface Case {
  name: string;
  args: readonly string[];
  /** Most the median may be, as a multiple of bare node's median. */
  targetRatio?: number;
}

const CASES: readonly Case[] = [
  { name: 'node -e 0 (limit)', args: ['-e', '0'] },
  // No target: what `workflow validate` cannot go below without changing the engine, which
  // it needs whole (core and TypeBox, yaml, ajv, semver), so the table tells the two apart.
  {
    name: 'import @weft/engine (floor)',
    args: ['--input-type=module', '-e', "await import('@weft/engine')"],
  },
  { name: 'weft --version', args: [weft, '--version'], targetRatio: 3 },
  { name: 'weft workflow --help', args: [weft, 'workflow', '--help'], targetRatio: 4 },
  {
    name: 'weft workflow validate order-fulfilment',
    args: [weft, 'workflow', 'validate', 'examples/order-fulfilment.yaml'],
    targetRatio: 5,
  },
  {
    name: 'weft workflow run (one step, local)',
    args: [weft, 'workflow', 'run', 'bench/cli/one-step.yaml'],
    targetRatio: 8,
  },
];

/** Wall milliseconds of one run of `node ...args` from the repository root; throws if it fails. */
function timeOnce(c: Case): number {
  const began = process.hrtime.bigint();
  const result = spawnSync(process.execPath, c.args, { cwd: root, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - began) / 1e6;
  if (result.status !== 0) {
    throw new Error(`${c.name} exited ${result.status}: ${result.stderr || result.stdout}`);
  }
  return ms;
}

export function run(): void {
  const samples = new Map<Case, number[]>(CASES.map((c) => [c, []]));
  // One warm-up run each: the file system cache, not start-up, is what a first run pays for.
  for (const c of CASES) timeOnce(c);
  const order = [...CASES];
  const random = seeded(29);
  for (let round = 0; round < ROUNDS; round++) {
    for (let j = order.length - 1; j > 0; j--) {
      const k = Math.floor(random() * (j + 1));
      [order[j], order[k]] = [order[k]!, order[j]!];
    }
    for (const c of order) samples.get(c)!.push(timeOnce(c));
  }
  const bare = median(samples.get(CASES[0]!)!);
  const rows = CASES.map((c) => {
    const times = samples.get(c)!;
    const ms = median(times);
    const ratio = ms / bare;
    const target =
      c.targetRatio === undefined
        ? ''
        : `≤ ${c.targetRatio}× ${ratio <= c.targetRatio ? 'ok' : 'MISSED'}`;
    return { c, times, ms, ratio, target };
  });
  const header = ['case', 'median ms', 'min ms', 'max ms', '× node', 'target'];
  const cells = rows.map((r) => [
    r.c.name,
    r.ms.toFixed(0),
    Math.min(...r.times).toFixed(0),
    Math.max(...r.times).toFixed(0),
    `${r.ratio.toFixed(2)}×`,
    r.target,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((row) => row[i]!.length)));
  const line = (row: readonly string[]) =>
    row
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join('  ');
  console.log(`\ncli: start-up of the weft command, median of ${ROUNDS} shuffled rounds`);
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of cells) console.log(line(row));
  const results: BenchResult[] = rows.map((r) => ({
    name: r.c.name,
    nsPerOp: r.ms * 1e6,
    opsPerSec: 1000 / r.ms,
    ratioToLimit: r.ratio,
    targetNs: r.c.targetRatio === undefined ? null : r.c.targetRatio * bare * 1e6,
    roundsNs: r.times.map((ms) => ms * 1e6),
  }));
  writeResults('cli', results, { rounds: ROUNDS });
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** A small seeded generator of numbers in [0, 1) (mulberry32), for a repeatable case order. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
