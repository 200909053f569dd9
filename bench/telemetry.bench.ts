/**
 * Cost of tracing: per step and per action call in the engine (a 1,000-step workflow
 * of no-op actions: one step span and one CLIENT span per step) with tracing off (no
 * interceptor), on and sampled at 100%, on and sampled at 0%, and the metrics interceptor alone,
 * next to a bare loop awaiting the handler (the limit); then a one-step execution through a
 * `weft server` over HTTP (`Prefer: wait`), next to a bare `node:http` round trip: with no
 * telemetry interceptor installed at all (`absent`: what a run cost before telemetry existed), with
 * `OTEL_SDK_DISABLED=true` (the metrics interceptor only; an OTLP endpoint is set and ignored),
 * and with tracing on at 100%, each pair call by call in a seeded random order in the same run.
 * Spans go to a no-op exporter through the batch processor, so the rows are the cost of making
 * spans, not of a collector. The cases without tracing run first: once a context manager is
 * registered (AsyncLocalStorage), it stays for the rest of the process; the engine cases after
 * it run in a new seeded random order each round.
 */
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import type { ActionInvoker } from '@weft/core';
import { loadWorkflowSource, runWorkflow, type WorkflowDefinition } from '@weft/engine';
import { buildServer, createLocalKey } from '@weft/server';
import { startTelemetry, telemetryOptionsFromEnv, type Telemetry } from '@weft/telemetry/setup';
import { printTable, writeResults, type BenchResult } from './harness.js';

const STEPS = 1_000;
const N = Number(process.env['WEFT_BENCH_EXECUTIONS'] ?? 400);

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

/**
 * A server whose one action answers at once, and a function posting one-step executions.
 * `absent`: the runtime gets no telemetry interceptor at all (no metrics, no tracing).
 */
async function benchServer(telemetry: Telemetry | 'absent') {
  const dataDir = mkdtempSync(join(tmpdir(), 'weft-bench-telemetry-'));
  const server = await buildServer(
    { dataDir, port: 0, logLevel: 'error' },
    {
      logger: false,
      runtime: {
        actions: { invoker: () => invoker, unavailable: async () => [] },
        ...(telemetry === 'absent'
          ? { metrics: undefined as never, tracing: undefined as never }
          : {}),
      },
      ...(telemetry !== 'absent' ? { telemetry } : {}),
    },
  );
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
  const key = `Bearer ${(await createLocalKey({ dataDir }, { name: 'bench' })).key}`;
  const agent = new Agent({ connections: 4 });
  const once = async () => {
    const response = await request(`${url}/workflows/executions`, {
      method: 'POST',
      dispatcher: agent,
      headers: { authorization: key, 'content-type': 'application/json', prefer: 'wait=10' },
      body: JSON.stringify({ workflow: ONE }),
    });
    const record = (await response.body.json()) as { status: string };
    if (record.status !== 'completed') throw new Error(`status ${record.status}`);
  };
  return {
    /** One one-step execution with `Prefer: wait`. */
    once,
    /** Nanoseconds of `count` one-step executions with `Prefer: wait`, one at a time. */
    samples: (count: number, warmup: number) => samples(once, count, warmup),
    close: async () => {
      await agent.close();
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A seeded random source (the same orders run to run). */
function seeded(seed: number): () => number {
  return () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}

/**
 * Nanoseconds of `count` calls of each function, call by call in a new seeded random order
 * each time (so that neither always follows the other: one server's writes after its answer
 * fall into the next call), and the load of a shared machine weighs on both alike.
 */
async function alternating(
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
  count: number,
): Promise<[number[], number[]]> {
  const out: [number[], number[]] = [[], []];
  const random = seeded(count);
  const time = async (fn: () => Promise<unknown>, into: number[]) => {
    const start = process.hrtime.bigint();
    await fn();
    into.push(Number(process.hrtime.bigint() - start));
  };
  for (let i = 0; i < count; i++) {
    if (random() < 0.5) {
      await time(a, out[0]);
      await time(b, out[1]);
    } else {
      await time(b, out[1]);
      await time(a, out[0]);
    }
  }
  return out;
}

/**
 * Rounds of `rounds` each case in a new seeded random order (every case once per round), the
 * nanoseconds of each call, per case.
 */
async function shuffledRounds(
  cases: readonly (() => Promise<unknown>)[],
  rounds: number,
): Promise<number[][]> {
  const out = cases.map((): number[] => []);
  const random = seeded(rounds);
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

export async function run(): Promise<BenchResult[]> {
  // Without tracing first (see the top of the file).
  const limit = await samples(bareLoop, 30, 10);
  const limitNs = median(limit) / STEPS;
  const off = await samples(() => runWorkflow(LINEAR, {}, { invoker }), 30, 10);
  const http = await bareHttpSamples();
  // OTEL_SDK_DISABLED=true wins over an endpoint: no tracer, metrics counted for /metrics.
  const disabledTelemetry = startTelemetry(
    telemetryOptionsFromEnv(
      { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' },
      'bench',
    ),
  );
  if (disabledTelemetry.tracing) throw new Error('OTEL_SDK_DISABLED=true started a tracer');
  const absent = await benchServer('absent');
  const disabled = await benchServer(disabledTelemetry);
  const control = await benchServer('absent');
  await absent.samples(50, 0);
  await control.samples(50, 0);
  await disabled.samples(50, 0);
  // Before any tracer exists (no context manager yet), call by call.
  const [serverAbsent, serverDisabled] = await alternating(absent.once, disabled.once, 2 * N);
  // The noise floor: two servers without telemetry interceptors, alike but for their files.
  const [controlA, controlB] = await alternating(absent.once, control.once, 2 * N);

  // The cases with a context manager, in a new seeded random order each round.
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
        runWorkflow(LINEAR, {}, { invoker, interceptors: [tracing.interceptor] }),
      ),
    () =>
      unsampled.tracing!.traceRun(info, undefined, () =>
        runWorkflow(LINEAR, {}, { invoker, interceptors: [unsampled.tracing!.interceptor] }),
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

  // The server with tracing on next to the same server with OTEL_SDK_DISABLED, call by call
  // (the context manager is registered for both by now).
  const serverTelemetry = startTelemetry({
    serviceName: 'bench',
    traces: { exporter: noopExporter },
    global: false,
  });
  const traced = await benchServer(serverTelemetry);
  await traced.samples(50, 0);
  const [serverOff, serverOn] = await alternating(disabled.once, traced.once, N);
  await traced.close();
  await disabled.close();
  await absent.close();
  await control.close();
  await serverTelemetry.shutdown();
  await disabledTelemetry.shutdown();

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
    result('1-step execution, absent (A/A control, first)', controlA, 1, httpNs),
    result('1-step execution, absent (A/A control, second)', controlB, 1, httpNs),
    result('1-step execution, OTEL_SDK_DISABLED=true (same rounds)', serverDisabled, 1, httpNs),
    result('1-step execution, OTEL_SDK_DISABLED=true (rounds with on)', serverOff, 1, httpNs),
    result('1-step execution, tracing on (100%)', serverOn, 1, httpNs),
  ];
  printTable('telemetry: engine, per step (each step one action call)', engine);
  printTable('telemetry: weft server over HTTP, per execution (SQLite)', server);
  console.log('\nmin / median / max of the medians of 10 slices of each case, per operation:');
  for (const [name, ns, per] of [
    ['engine, metrics only (per step)', counted, STEPS],
    ['engine, tracing 100% (per step)', on, STEPS],
    ['engine, tracing 0% (per step)', zero, STEPS],
    ['server, OTEL_SDK_DISABLED (rounds with on)', serverOff, 1],
    ['server, tracing on (100%)', serverOn, 1],
  ] as const)
    console.log(`  ${name.padEnd(44)} ${spread(ns, per)}`);
  const perStep = (r: BenchResult) => r.nsPerOp;
  console.log(
    `\ntracing on adds ${(perStep(engine[3]!) - perStep(engine[1]!)).toFixed(0)} ns per step` +
      ` (a step span and an action span); a 1-step execution through the server costs` +
      ` ${((server[4]!.nsPerOp / server[1]!.nsPerOp - 1) * 100).toFixed(1)}% more with` +
      ` OTEL_SDK_DISABLED=true than with no telemetry interceptor (target < 1%; two servers` +
      ` without any differ by ${((server[3]!.nsPerOp / server[2]!.nsPerOp - 1) * 100).toFixed(1)}%), and` +
      ` ${((server[6]!.nsPerOp / server[5]!.nsPerOp - 1) * 100).toFixed(1)}% more with tracing on` +
      ` at 100% than with it disabled (target < 10%)`,
  );
  // On a loaded machine the medians move by several per cent from run to run; the lower
  // quartile (the calls the other processes left alone) is steadier.
  const quartile = (values: number[]) => [...values].sort((x, y) => x - y)[values.length >> 2]!;
  const pct = (a: number[], b: number[]) => ((quartile(a) / quartile(b) - 1) * 100).toFixed(1);
  console.log(
    `lower quartiles: OTEL_SDK_DISABLED=true ${pct(serverDisabled, serverAbsent)}% over absent` +
      ` (A/A control ${pct(controlB, controlA)}%),` +
      ` tracing on ${pct(serverOn, serverOff)}% over disabled; the metrics interceptor alone adds` +
      ` ${(perStep(engine[2]!) - perStep(engine[1]!)).toFixed(0)} ns per action call in the engine`,
  );
  const all = [...engine, ...server];
  writeResults('telemetry', all, { rounds: 30 });
  return all;
}
