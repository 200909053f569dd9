/**
 * Peers: the shape of Windmill's published benchmark (a flow of 40 light tasks in sequence,
 * `fibo(10)`, and a flow of 10 long ones, `fibo(33)`; see bench/peers/tasks.ts) and a 10-step
 * durable chain, run on this machine in the same run by weft (the SDK in `local` mode, and a
 * server on loopback with `Prefer: wait` on SQLite and, when WEFT_TEST_DATABASE_URL is set,
 * PostgreSQL), Restate (its server binary from npm as a child, the SDK's service in this process,
 * each task a `ctx.run`) and BullMQ flows on the local Redis (a job per task), next to the bare
 * limit: the same tasks as plain awaited function calls. Every (system, shape) case runs once per
 * round, in a new seeded random order each round (`WEFT_BENCH_ROUNDS`, default 5, after one
 * warm-up pass); the table gives min / median / max wall time over the rounds and the overhead
 * per task: wall time minus the time spent in `fibo` itself, divided by the tasks. A peer that
 * cannot run here (no binary for the platform, Redis down) is skipped with the reason. Then the
 * figures Windmill, Temporal, Hatchet, Kestra and n8n published, as reference only.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shuffler } from './harness.js';
import { startBullmq } from './peers/bullmq.js';
import { PUBLISHED } from './peers/published.js';
import { startRestate } from './peers/restate.js';
import { resetWork, SHAPES, work, type Shape } from './peers/tasks.js';
import { bare, weftLocal, weftServer, type System } from './peers/weft.js';

const ROUNDS = Number(process.env['WEFT_BENCH_ROUNDS'] ?? 5);
const databaseUrl = process.env['WEFT_TEST_DATABASE_URL'];

interface Sample {
  wallNs: number;
  workNs: number;
}

interface Row {
  shape: string;
  system: string;
  tasks: number;
  rounds: number;
  wall_ms: { min: number; median: number; max: number };
  overhead_per_task_ms: { min: number; median: number; max: number };
  work_ms_median: number;
  wall_x_bare: number | null;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function spread(values: readonly number[]) {
  const round = (v: number) => Number(v.toFixed(3));
  return {
    min: round(Math.min(...values)),
    median: round(median(values)),
    max: round(Math.max(...values)),
  };
}

/** Prints an aligned table; the first `textColumns` columns are left-aligned, the rest right. */
function table(title: string, header: string[], rows: string[][], textColumns = 2): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i < textColumns ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  console.log(`\n${title}`);
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
}

async function startSystems(): Promise<{ systems: System[]; skipped: string[] }> {
  const systems: System[] = [bare(), weftLocal(SHAPES), await weftServer()];
  const skipped: string[] = [];
  if (databaseUrl) systems.push(await weftServer(databaseUrl));
  else skipped.push('weft server on PostgreSQL: set WEFT_TEST_DATABASE_URL');
  const restate = await startRestate();
  if ('system' in restate) systems.push(restate.system);
  else skipped.push(`Restate: ${restate.skipped}`);
  const bull = await startBullmq();
  if ('system' in bull) systems.push(bull.system);
  else skipped.push(`BullMQ: ${bull.skipped}`);
  return { systems, skipped };
}

async function measure(systems: readonly System[]): Promise<Map<string, Sample[]>> {
  const cases: [System, Shape][] = systems.flatMap((s) =>
    SHAPES.map((h): [System, Shape] => [s, h]),
  );
  const key = (system: System, shape: Shape) => `${shape.key}\u0000${system.name}`;
  const samples = new Map(cases.map(([s, h]) => [key(s, h), [] as Sample[]]));
  for (const [system, shape] of cases) await system.run(shape);
  const shuffle = shuffler(32);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [system, shape] of shuffle(cases)) {
      resetWork();
      const started = process.hrtime.bigint();
      await system.run(shape);
      const wallNs = Number(process.hrtime.bigint() - started);
      samples.get(key(system, shape))!.push({ wallNs, workNs: work.ns });
    }
  }
  return samples;
}

function rows(systems: readonly System[], samples: Map<string, Sample[]>): Row[] {
  return SHAPES.flatMap((shape) => {
    const of = (system: System) => samples.get(`${shape.key}\u0000${system.name}`)!;
    const bareWall = median(of(systems[0]!).map((s) => s.wallNs));
    return systems.map((system): Row => {
      const list = of(system);
      const wall = list.map((s) => s.wallNs / 1e6);
      const overhead = list.map((s) => (s.wallNs - s.workNs) / 1e6 / shape.tasks);
      return {
        shape: shape.label,
        system: system.name,
        tasks: shape.tasks,
        rounds: list.length,
        wall_ms: spread(wall),
        overhead_per_task_ms: spread(overhead),
        work_ms_median: Number(median(list.map((s) => s.workNs / 1e6)).toFixed(3)),
        wall_x_bare: Number((median(list.map((s) => s.wallNs)) / bareWall).toFixed(2)),
      };
    });
  });
}

function ms(value: number): string {
  return value >= 100 ? value.toFixed(0) : value >= 1 ? value.toFixed(2) : value.toFixed(3);
}

/** Runs the suite, prints its two tables and writes `bench/results/peers.json`. */
export async function run(): Promise<Row[]> {
  const { systems, skipped } = await startSystems();
  let measured: Row[];
  try {
    measured = rows(systems, await measure(systems));
  } finally {
    for (const system of systems) await system.close();
  }
  for (const reason of skipped) console.log(`skipped: ${reason}`);
  table(
    `peers: measured here, ${ROUNDS} rounds in a shuffled order (wall ms min / median / max)`,
    ['shape', 'system', 'wall median', 'min', 'max', 'overhead/task median', '(min–max)', '× bare'],
    measured.map((r) => [
      r.shape,
      r.system,
      ms(r.wall_ms.median),
      ms(r.wall_ms.min),
      ms(r.wall_ms.max),
      ms(r.overhead_per_task_ms.median),
      `(${ms(r.overhead_per_task_ms.min)}–${ms(r.overhead_per_task_ms.max)})`,
      r.wall_x_bare === null ? '-' : `${r.wall_x_bare.toFixed(2)}×`,
    ]),
  );
  table(
    'published figures (not measured here: other machines, versions and set-ups; reference only)',
    ['system', 'figure', 'what it measures', 'source'],
    PUBLISHED.map((p) => [p.system, p.figure, p.measures, p.source]),
    4,
  );
  const directory = join(dirname(fileURLToPath(import.meta.url)), 'results');
  mkdirSync(directory, { recursive: true });
  const document = {
    suite: 'peers',
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    rounds: ROUNDS,
    skipped,
    results: measured,
    published: PUBLISHED,
  };
  writeFileSync(join(directory, 'peers.json'), `${JSON.stringify(document, null, 2)}\n`);
  return measured;
}
