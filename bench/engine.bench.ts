/**
 * Engine overhead per step: a 1,000-step linear workflow of no-op handlers, with
 * literal inputs and with one template per step, and a 100,000-item for_each (sequential and
 * concurrent), next to a bare loop that awaits the same handler directly (the limit).
 */
import type { ActionInvoker } from '@weft/core';
import { runWorkflow, type RunInterceptor, type WorkflowDefinition } from '@weft/engine';
import { LocalInvoker } from '@weft/sdk';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { forEach, ITEMS, load } from './engine/workflows.js';
import { printTable, shuffler, writeResults, type BenchResult } from './harness.js';

const STEPS = 1_000;

const handler = async (input: Record<string, unknown>) => ({ v: input['v'] });
const invoker: ActionInvoker = { invoke: async (call) => ({ output: { v: call.input['v'] } }) };
/** An interceptor that only passes everything on: the cost of the chain itself. */
const passThrough: RunInterceptor = {
  step: (_call, next) => next(),
  invoke: (call, next) => next(call),
};

function linear(templated: boolean): WorkflowDefinition {
  const steps = Array.from({ length: STEPS }, (_, i) => ({
    name: `s${i}`,
    plugin: 'noop',
    action: 'run',
    input: { v: templated && i > 0 ? `{{ steps.s${i - 1}.output.v }}` : 1 },
  }));
  return load({ workflows: [{ name: 'linear', steps }] });
}

async function bareLoop(): Promise<void> {
  let v: unknown = 1;
  for (let i = 0; i < STEPS; i++) v = (await handler({ v })).v;
}

/**
 * Nanoseconds of each of `cases` over `rounds` rounds after `warmup` runs each, every round
 * running the cases once in a new seeded order (see `shuffler`).
 */
async function measure(
  cases: readonly (() => Promise<unknown>)[],
  rounds: number,
  warmup: number,
): Promise<number[][]> {
  for (let i = 0; i < warmup; i++) for (const fn of cases) await fn();
  const samples: number[][] = cases.map(() => []);
  const shuffle = shuffler(11);
  const order = cases.map((_, i) => i);
  for (let round = 0; round < rounds; round++) {
    for (const i of shuffle(order)) {
      const start = process.hrtime.bigint();
      await cases[i]!();
      samples[i]!.push(Number(process.hrtime.bigint() - start));
    }
  }
  return samples;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function result(
  name: string,
  samples: number[],
  perOp: number,
  limitNs: number | null,
  targetNs?: number,
): BenchResult {
  const nsPerOp = median(samples) / perOp;
  return {
    name,
    nsPerOp,
    opsPerSec: 1e9 / nsPerOp,
    ratioToLimit: limitNs === null ? null : nsPerOp / limitNs,
    targetNs: targetNs ?? null,
    roundsNs: samples.map((s) => s / perOp),
  };
}

/** Peak RSS of `runs` parallel 100,000-item for_each runs, each in a new process. */
function forEachPeaks(runs: number): { rssBefore: number; peakRss: number; ms: number }[] {
  const script = fileURLToPath(new URL('./engine/for-each-peak.ts', import.meta.url));
  return Array.from({ length: runs }, () => {
    const child = spawnSync(process.execPath, ['--import', 'tsx', script, 'parallel'], {
      encoding: 'utf8',
    });
    if (child.status !== 0) throw new Error(`for-each-peak failed: ${child.stderr}`);
    return JSON.parse(child.stdout) as { rssBefore: number; peakRss: number; ms: number };
  });
}

export async function run(): Promise<void> {
  const literal = linear(false);
  const templated = linear(true);
  const check = await runWorkflow(templated, {}, { invoker });
  if (check.status !== 'completed')
    throw new Error(`templated run failed: ${check.error?.message}`);

  const interceptors = [passThrough];
  const local = new LocalInvoker().registerHandler('noop.run', handler);
  const timeoutFor = local.timeoutFor.bind(local);
  const [limit, engineLiteral, engineTemplated, engineChain, engineSdk] = (await measure(
    [
      bareLoop,
      () => runWorkflow(literal, {}, { invoker }),
      () => runWorkflow(templated, {}, { invoker }),
      () => runWorkflow(literal, {}, { invoker, interceptors }),
      () => runWorkflow(literal, {}, { invoker: local, timeoutFor }),
    ],
    30,
    10,
  )) as [number[], number[], number[], number[], number[]];
  const limitNs = median(limit) / STEPS;
  const overhead = (samples: number[]) => samples.map((s) => s - median(limit));

  const items = Array.from({ length: ITEMS }, (_, i) => i);
  const sequential = forEach(false);
  const concurrent = forEach(true);
  const [eachSeq, eachPar] = (await measure(
    [
      () => runWorkflow(sequential, { items }, { invoker }),
      () => runWorkflow(concurrent, { items }, { invoker }),
    ],
    5,
    1,
  )) as [number[], number[]];

  const results = [
    result('bare loop awaiting the handler (limit), per step', limit, STEPS, limitNs),
    result('engine, 1,000 literal steps, per step', engineLiteral, STEPS, limitNs),
    result('  overhead over the limit, per step', overhead(engineLiteral), STEPS, null, 2000),
    result(
      'engine + SDK LocalInvoker (schemas, concurrency cap), per step',
      engineSdk,
      STEPS,
      limitNs,
    ),
    result(
      'engine + a pass-through interceptor (step and invoke hooks), per step',
      engineChain,
      STEPS,
      limitNs,
    ),
    result('engine, 1,000 templated steps, per step', engineTemplated, STEPS, limitNs),
    result('  overhead over the limit, per step', overhead(engineTemplated), STEPS, null, 3000),
    result('for_each 100,000 items sequential, whole run', eachSeq, 1, null, 500e6),
    result('for_each 100,000 items parallel: true, whole run', eachPar, 1, null, 500e6),
  ];
  printTable('engine: per-step overhead', results);
  writeResults('engine', results, { rounds: 30 });

  const peaks = forEachPeaks(5);
  const gc = (globalThis as { gc?: () => void }).gc;
  const heap = () => {
    gc?.();
    return process.memoryUsage().heapUsed / 2 ** 20;
  };
  for (let i = 0; i < 10; i++) await runWorkflow(templated, {}, { invoker });
  const heapStart = heap();
  for (let i = 0; i < 100; i++) await runWorkflow(templated, {}, { invoker });
  const heapEnd = heap();
  const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
  const worst = Math.max(...peaks.map((p) => p.peakRss));
  console.log(
    `memory: peak RSS of a 100,000-item parallel for_each, each run in a new process: worst of ${peaks.length} ${mib(worst)} MiB (target < 300 MiB${worst < 300 * 2 ** 20 ? ', ok' : ', MISSED'}); runs ${peaks.map((p) => mib(p.peakRss)).join(', ')} MiB, of which before the run (engine loaded, items built) ${peaks.map((p) => mib(p.rssBefore)).join(', ')} MiB`,
  );
  console.log(
    `memory: heap after 10 / after 110 runs of 1,000 templated steps ${heapStart.toFixed(1)} / ${heapEnd.toFixed(1)} MiB${gc ? '' : ' (run with --expose-gc for exact numbers)'}`,
  );
}
