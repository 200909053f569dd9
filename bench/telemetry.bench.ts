/**
 * Cost of tracing: per step and per action call in the engine (a 1,000-step workflow
 * of no-op actions: one step span and one CLIENT span per step) with tracing off (no
 * interceptor), on and sampled at 100%, on and sampled at 0%, and the metrics interceptor alone,
 * next to a bare loop awaiting the handler (the limit), the engine cases in a new seeded random
 * order each round; then a one-step execution through a `weft server` over HTTP
 * (`Prefer: wait`), next to a bare `node:http` round trip: with no telemetry interceptor
 * installed at all (`absent`: what a run cost before telemetry existed, twice: the A/A
 * control), with `OTEL_SDK_DISABLED=true` (the metrics interceptor only; an OTLP endpoint is set
 * and ignored), and with tracing on at 100%, each server in a process of its own
 * (`telemetry/server.ts`: the `AsyncLocalStorage` promise hooks that the traced server's first
 * `context.with` turns on for its whole process stay out of the others, as in production), the
 * four called one execution each per round in a new seeded random order; with the wall time of
 * each call, the CPU time of each server's process per execution. Spans go to a no-op exporter
 * through the batch processor, so the rows are the cost of making spans, not of a collector.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import type { ActionInvoker } from '@weft/core';
import { loadWorkflowSource, runWorkflow, type WorkflowDefinition } from '@weft/engine';
import { startTelemetry } from '@weft/telemetry/setup';
import { printTable, writeResults, type BenchResult } from './harness.js';

const STEPS = 1_000;
const N = Number(process.env['WEFT_BENCH_EXECUTIONS'] ?? 3000);

const invoker: ActionInvoker = { invoke: async (call) => ({ output: { v: call.input['v'] } }) };
const handler = async (input: Record<string, unknown>) => ({ v: input['v'] });
const noopExporter = {
  export: (_spans: unknown[], done: (result: { code: number }) => void) => done({ code: 0 }),
  shutdown: async () => {},
};

function load(text: string): WorkflowDefinition {
  const result = loadWorkflowSource(text, { maxFileSize: 64 * 1024 * 1024 });
  if (!result.ok) throw new Error(result.diagnostics[0]?.message);
  return result.workflows[0]!;
}

const LINEAR = load(
  JSON.stringify({
    workflows: [
      {
        name: 'linear',
        steps: Array.from({ length: STEPS }, (_, i) => ({
          name: `s${i}`,
          plugin: 'noop',
          action: 'run',
          input: { v: 1 },
        })),
      },
    ],
  }),
);
const ONE = `workflows:
  - name: one
    steps:
      - { name: s, plugin: echo, action: run, input: { v: 1 } }
`;

async function samples(fn: () => Promise<unknown>, rounds: number, warmup: number) {
  for (let i = 0; i < warmup; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = process.hrtime.bigint();
    await fn();
    out.push(Number(process.hrtime.bigint() - start));
  }
  return out;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function result(name: string, ns: number[], perOp: number, limitNs: number): BenchResult {
  const nsPerOp = median(ns) / perOp;
  return {
    name,
    nsPerOp,
    opsPerSec: 1e9 / nsPerOp,
    ratioToLimit: nsPerOp / limitNs,
    targetNs: null,
    roundsNs: ns.map((s) => s / perOp),
  };
}

async function bareLoop(): Promise<void> {
  let v: unknown = 1;
  for (let i = 0; i < STEPS; i++) v = (await handler({ v })).v;
}

type ServerMode = 'absent' | 'disabled' | 'traced';

/**
 * A server whose one action answers at once, in a new process (`telemetry/server.ts`), and a
 * function posting one-step executions to it.
 */
async function forkServer(mode: ServerMode) {
  const script = fileURLToPath(new URL('./telemetry/server.ts', import.meta.url));
  const child: ChildProcess = fork(script, [mode], { execArgv: ['--import', 'tsx'] });
  const next = async <T>() => (await once(child, 'message'))[0] as T;
  const { url, key } = await next<{ url: string; key: string }>();
  const agent = new Agent({ connections: 4 });
  return {
    /** One one-step execution with `Prefer: wait`. */
    once: async () => {
      const response = await request(`${url}/workflows/executions`, {
        method: 'POST',
        dispatcher: agent,
        headers: { authorization: key, 'content-type': 'application/json', prefer: 'wait=10' },
        body: JSON.stringify({ workflow: ONE }),
      });
      const record = (await response.body.json()) as { status: string };
      if (record.status !== 'completed') throw new Error(`status ${record.status}`);
    },
    /** CPU time (user + system, µs) the server's process has used so far. */
    cpuUs: async () => {
      child.send('cpu');
      return (await next<{ cpuUs: number }>()).cpuUs;
    },
    close: async () => {
      await agent.close();
      child.send('close');
      await once(child, 'exit');
    },
  };
}

/** A seeded random source (the same orders run to run). */
function seeded(seed: number): () => number {
  return () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}

/**
 * Rounds of `rounds` each case in a new seeded random order (every case once per round), the
 * nanoseconds of each call, per case.
 */
async function shuffledRounds(
  cases: readonly (() => Promise<unknown>)[],
  rounds: number,
  /** Called before the first round and after every `slice.rounds` rounds. */
  slice?: { rounds: number; each: () => Promise<void> },
): Promise<number[][]> {
  const out = cases.map((): number[] => []);
  const random = seeded(rounds);
  await slice?.each();
  for (let round = 0; round < rounds; round++) {
    const order = cases.map((_, i) => i);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (const i of order) {
      const start = process.hrtime.bigint();
      await cases[i]!();
      out[i]!.push(Number(process.hrtime.bigint() - start));
    }
    if (slice && (round + 1) % slice.rounds === 0) await slice.each();
  }
  return out;
}

/** min / median / max of the medians of `parts` consecutive slices of `values`, divided by `per`. */
function spread(values: readonly number[], per: number, parts = 10): string {
  const size = Math.max(1, Math.floor(values.length / parts));
  const medians: number[] = [];
  for (let i = 0; i + size <= values.length; i += size)
    medians.push(median(values.slice(i, i + size)));
  const f = (ns: number) => (ns / per / 1000).toFixed(1);
  const sorted = [...medians].sort((a, b) => a - b);
  return `${f(sorted[0]!)} / ${f(median(medians))} / ${f(sorted.at(-1)!)} µs`;
}

async function bareHttpSamples(): Promise<number[]> {
  const bare = createServer((_req, res) => res.end('{"status":"ok"}'));
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`;
  const agent = new Agent({ connections: 4 });
  const out = await samples(
    async () => {
      const response = await request(url, { method: 'POST', dispatcher: agent, body: '{}' });
      await response.body.text();
    },
    N,
    50,
  );
  await agent.close();
  await new Promise((resolve) => bare.close(resolve));
  return out;
}

/** min / median / max of `values`, in µs (from ns). */
function range(values: readonly number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const f = (ns: number) => (ns / 1000).toFixed(1);
  return `${f(sorted[0]!)} / ${f(median(sorted))} / ${f(sorted.at(-1)!)} µs`;
}

export async function run(): Promise<BenchResult[]> {
  const limit = await samples(bareLoop, 30, 10);
  const limitNs = median(limit) / STEPS;
  const off = await samples(() => runWorkflow(LINEAR, {}, { invoker }), 30, 10);
  const http = await bareHttpSamples();

  // The engine cases, in a new seeded random order each round (they share this process's
  // context manager; the server cases below do not share theirs).
  const metricsOnly = startTelemetry({ serviceName: 'bench', global: false });
  const engineTelemetry = startTelemetry({
    serviceName: 'bench',
    traces: { exporter: noopExporter },
    global: false,
  });
  const tracing = engineTelemetry.tracing!;
  const unsampled = startTelemetry({
    serviceName: 'bench',
    traces: { exporter: noopExporter, sampler: { kind: 'always_off' } },
    global: false,
  });
  const info = { executionId: 'bench', workflow: 'linear', version: '1.0.0', mode: 'local' };
  const engineCases = [
    () => runWorkflow(LINEAR, {}, { invoker, interceptors: [metricsOnly.metrics.interceptor] }),
    () =>
      tracing.traceRun(info, undefined, () =>
        runWorkflow(
          LINEAR,
          {},
          { invoker, executionId: 'bench', interceptors: [tracing.interceptor] },
        ),
      ),
    () =>
      unsampled.tracing!.traceRun(info, undefined, () =>
        runWorkflow(
          LINEAR,
          {},
          {
            invoker,
            executionId: 'bench',
            interceptors: [unsampled.tracing!.interceptor],
          },
        ),
      ),
  ];
  await shuffledRounds(engineCases, 10);
  const [counted, on, zero] = (await shuffledRounds(engineCases, 30)) as [
    number[],
    number[],
    number[],
  ];
  await metricsOnly.shutdown();
  await engineTelemetry.shutdown();
  await unsampled.shutdown();

  // The servers, each in its own process, one execution each per round in a shuffled order;
  // their CPU time read every tenth of the rounds.
  const servers = await Promise.all(
    (['absent', 'absent', 'disabled', 'traced'] as const).map(forkServer),
  );
  const cases = servers.map((s) => s.once);
  await shuffledRounds(cases, 200);
  const cpu = servers.map((): number[] => []);
  const slices = 10;
  const sliceRounds = Math.max(1, Math.floor(N / slices));
  const marks = servers.map((): number[] => []);
  const [serverAbsent, serverControl, serverDisabled, serverOn] = (await shuffledRounds(
    cases,
    sliceRounds * slices,
    {
      rounds: sliceRounds,
      each: async () => {
        for (const [i, server] of servers.entries()) marks[i]!.push(await server.cpuUs());
      },
    },
  )) as [number[], number[], number[], number[]];
  for (const [i, m] of marks.entries())
    for (let j = 1; j < m.length; j++) cpu[i]!.push(((m[j]! - m[j - 1]!) * 1000) / sliceRounds);
  await Promise.all(servers.map((s) => s.close()));

  const engine = [
    result('bare loop awaiting the handler (limit), per step', limit, STEPS, limitNs),
    result('engine, tracing off (no interceptor), per step', off, STEPS, limitNs),
    result('engine, metrics interceptor only, per step', counted, STEPS, limitNs),
    result('engine, tracing on, 100% sampled, per step (2 spans)', on, STEPS, limitNs),
    result('engine, tracing on, 0% sampled, per step', zero, STEPS, limitNs),
  ];
  const httpNs = median(http);
  const server = [
    result('bare node:http round trip (limit)', http, 1, httpNs),
    result('1-step execution, telemetry interceptors absent', serverAbsent, 1, httpNs),
    result('1-step execution, absent (A/A control)', serverControl, 1, httpNs),
    result('1-step execution, OTEL_SDK_DISABLED=true', serverDisabled, 1, httpNs),
    result('1-step execution, tracing on (100%)', serverOn, 1, httpNs),
  ];
  const cpuNames = [
    'server CPU per execution, absent',
    'server CPU per execution, absent (A/A control)',
    'server CPU per execution, OTEL_SDK_DISABLED=true',
    'server CPU per execution, tracing on (100%)',
  ];
  const serverCpu = cpu.map((values, i) => result(cpuNames[i]!, values, 1, median(cpu[0]!)));
  printTable('telemetry: engine, per step (each step one action call)', engine);
  printTable('telemetry: weft server over HTTP, per execution (SQLite), wall time', server);
  printTable('telemetry: weft server, CPU time of its process per execution', serverCpu);
  console.log('\nmin / median / max of the medians of 10 slices of each case, per operation:');
  for (const [name, ns, per] of [
    ['engine, metrics only (per step)', counted, STEPS],
    ['engine, tracing 100% (per step)', on, STEPS],
    ['engine, tracing 0% (per step)', zero, STEPS],
    ['server, absent', serverAbsent, 1],
    ['server, absent (A/A control)', serverControl, 1],
    ['server, OTEL_SDK_DISABLED', serverDisabled, 1],
    ['server, tracing on (100%)', serverOn, 1],
  ] as const)
    console.log(`  ${name.padEnd(44)} ${spread(ns, per)}`);
  console.log('min / median / max of the CPU per execution of 10 slices:');
  for (const [i, name] of cpuNames.entries()) console.log(`  ${name.padEnd(50)} ${range(cpu[i]!)}`);
  const perStep = (r: BenchResult) => r.nsPerOp;
  const pct = (a: number, b: number) => ((a / b - 1) * 100).toFixed(1);
  console.log(
    `\ntracing on adds ${(perStep(engine[3]!) - perStep(engine[1]!)).toFixed(0)} ns per step` +
      ` (a step span and an action span); a 1-step execution through the server costs` +
      ` ${pct(server[3]!.nsPerOp, server[1]!.nsPerOp)}% more wall time with` +
      ` OTEL_SDK_DISABLED=true than with no telemetry interceptor (target < 1%; two servers` +
      ` without any differ by ${pct(server[2]!.nsPerOp, server[1]!.nsPerOp)}%), and` +
      ` ${pct(server[4]!.nsPerOp, server[3]!.nsPerOp)}% more with tracing on` +
      ` at 100% than with it disabled (target < 10%)`,
  );
  // On a loaded machine the medians move by several per cent from run to run; the lower
  // quartile (the calls the other processes left alone) is steadier.
  const quartile = (values: number[]) => [...values].sort((x, y) => x - y)[values.length >> 2]!;
  const q = (a: number[], b: number[]) => pct(quartile(a), quartile(b));
  console.log(
    `lower quartiles: OTEL_SDK_DISABLED=true ${q(serverDisabled, serverAbsent)}% over absent` +
      ` (A/A control ${q(serverControl, serverAbsent)}%),` +
      ` tracing on ${q(serverOn, serverDisabled)}% over disabled; server CPU per execution:` +
      ` OTEL_SDK_DISABLED=true ${pct(serverCpu[2]!.nsPerOp, serverCpu[0]!.nsPerOp)}% over absent` +
      ` (A/A control ${pct(serverCpu[1]!.nsPerOp, serverCpu[0]!.nsPerOp)}%), tracing on` +
      ` ${pct(serverCpu[3]!.nsPerOp, serverCpu[2]!.nsPerOp)}% over disabled; the metrics` +
      ` interceptor alone adds ${(perStep(engine[2]!) - perStep(engine[1]!)).toFixed(0)} ns per` +
      ` action call in the engine`,
  );
  const all = [...engine, ...server, ...serverCpu];
  writeResults('telemetry', all, { rounds: 30 });
  return all;
}
