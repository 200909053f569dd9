/**
 * Cost of tracing (issue 18): per step and per action call in the engine (a 1,000-step workflow
 * of no-op actions: one step span and one CLIENT span per step) with tracing off (no
 * interceptor), on and sampled at 100%, on and sampled at 0%, and the metrics interceptor alone,
 * next to a bare loop awaiting the handler (the limit); then a one-step execution through a
 * `weft server` over HTTP (`Prefer: wait`) with tracing off and on, next to a bare `node:http`
 * round trip. Spans go to a no-op exporter through the batch processor, so the rows are the
 * cost of making spans, not of a collector. The cases without tracing run first: once a context
 * manager is registered (AsyncLocalStorage), it stays for the rest of the process.
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
import { startTelemetry, type Telemetry } from '@weft/telemetry/setup';
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

/** A server whose one action answers at once, and a function posting one-step executions. */
async function benchServer(telemetry: Telemetry | undefined) {
  const dataDir = mkdtempSync(join(tmpdir(), 'weft-bench-telemetry-'));
  const server = await buildServer(
    { dataDir, port: 0, logLevel: 'error' },
    {
      logger: false,
      runtime: { actions: { invoker: () => invoker, unavailable: async () => [] } },
      ...(telemetry ? { telemetry } : {}),
    },
  );
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
  const key = `Bearer ${(await createLocalKey({ dataDir }, { name: 'bench' })).key}`;
  const agent = new Agent({ connections: 4 });
  return {
    /** Nanoseconds of `count` one-step executions with `Prefer: wait`, one at a time. */
    samples: (count: number, warmup: number) =>
      samples(
        async () => {
          const response = await request(`${url}/workflows/executions`, {
            method: 'POST',
            dispatcher: agent,
            headers: { authorization: key, 'content-type': 'application/json', prefer: 'wait=10' },
            body: JSON.stringify({ workflow: ONE }),
          });
          const record = (await response.body.json()) as { status: string };
          if (record.status !== 'completed') throw new Error(`status ${record.status}`);
        },
        count,
        warmup,
      ),
    close: async () => {
      await agent.close();
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
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
  const plain = await benchServer(undefined);
  const pristine = await plain.samples(N, 50);

  const metricsOnly = startTelemetry({ serviceName: 'bench', global: false });
  const counted = await samples(
    () => runWorkflow(LINEAR, {}, { invoker, interceptors: [metricsOnly.metrics.interceptor] }),
    30,
    10,
  );
  await metricsOnly.shutdown();

  const engineTelemetry = startTelemetry({
    serviceName: 'bench',
    traces: { exporter: noopExporter },
    global: false,
  });
  const tracing = engineTelemetry.tracing!;
  const info = { executionId: 'bench', workflow: 'linear', version: '1.0.0', mode: 'local' };
  const on = await samples(
    () =>
      tracing.traceRun(info, undefined, () =>
        runWorkflow(LINEAR, {}, { invoker, interceptors: [tracing.interceptor] }),
      ),
    30,
    10,
  );
  await engineTelemetry.shutdown();
  const unsampled = startTelemetry({
    serviceName: 'bench',
    traces: { exporter: noopExporter, sampler: { kind: 'always_off' } },
    global: false,
  });
  const zero = await samples(
    () =>
      unsampled.tracing!.traceRun(info, undefined, () =>
        runWorkflow(LINEAR, {}, { invoker, interceptors: [unsampled.tracing!.interceptor] }),
      ),
    30,
    10,
  );
  await unsampled.shutdown();

  // The server with tracing on next to the same server without, in alternating rounds (the
  // context manager is registered for both by now).
  const serverTelemetry = startTelemetry({
    serviceName: 'bench',
    traces: { exporter: noopExporter },
    global: false,
  });
  const traced = await benchServer(serverTelemetry);
  await traced.samples(50, 0);
  const serverOff: number[] = [];
  const serverOn: number[] = [];
  for (let round = 0; round < 8; round++) {
    serverOff.push(...(await plain.samples(Math.ceil(N / 8), 5)));
    serverOn.push(...(await traced.samples(Math.ceil(N / 8), 5)));
  }
  await traced.close();
  await plain.close();
  await serverTelemetry.shutdown();

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
    result('1-step execution, Prefer: wait, before any tracing', pristine, 1, httpNs),
    result('1-step execution, Prefer: wait, tracing off', serverOff, 1, httpNs),
    result('1-step execution, Prefer: wait, tracing on (100%)', serverOn, 1, httpNs),
  ];
  printTable('telemetry: engine, per step (each step one action call)', engine);
  printTable('telemetry: weft server over HTTP, per execution (SQLite)', server);
  const perStep = (r: BenchResult) => r.nsPerOp;
  console.log(
    `\ntracing on adds ${(perStep(engine[3]!) - perStep(engine[1]!)).toFixed(0)} ns per step` +
      ` (a step span and an action span); a 1-step execution through the server costs` +
      ` ${((server[3]!.nsPerOp / server[2]!.nsPerOp - 1) * 100).toFixed(1)}% more with tracing on`,
  );
  const all = [...engine, ...server];
  writeResults('telemetry', all, { rounds: 30 });
  return all;
}
