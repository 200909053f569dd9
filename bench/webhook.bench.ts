/**
 * Triggers under load.
 * 1. Signed webhook requests accepted end to end by the real server (HMAC verified, timestamp and
 *    delivery id checked, the execution's record durable in SQLite, the execution then run)
 *    under 64 connections, next to a bare Fastify route on the same server (the limit). The
 *    server runs in a child process.
 * 2. Scheduler precision: 1,000 schedules due in the same second, each fire starting an execution
 *    through the real runtime (durable record, then the run); fire time minus due time.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { keyPrincipal, type ScheduleTrigger } from '@weft/core';
import { openStore } from '@weft/store';
import type { WorkflowDefinition } from '@weft/engine';
import { compileSchedule, Scheduler, toExecutionRecord } from '@weft/runtime';
import { percentile, printLoadTable, type LoadResult } from './registry/load.js';
import { buildServer } from '@weft/server';

const SECONDS = Number(process.env['WEFT_BENCH_SECONDS'] ?? 5);
const SCHEDULES = 1000;
const serverScript = fileURLToPath(new URL('./webhook/server.ts', import.meta.url));

async function measure(url: string, signed: boolean) {
  // Each request is a new delivery: its own body, signed over `<timestamp>.<body>` (an accepted
  // signature is refused again within the replay window).
  const delivery = () => {
    const id = randomUUID();
    const timestamp = String(Math.floor(Date.now() / 1000));
    const body = JSON.stringify({
      ref: 'refs/heads/main',
      commits: [{ id, message: 'bench' }],
    });
    const mac = createHmac('sha256', 'bench-secret').update(`${timestamp}.${body}`).digest('hex');
    return { id, timestamp, body, signature: `sha256=${mac}` };
  };
  const result = await autocannon({
    url,
    connections: 64,
    duration: SECONDS,
    requests: [
      signed
        ? {
            method: 'POST',
            path: '/hooks/bench',
            setupRequest: (request) => {
              const { id, timestamp, body, signature } = delivery();
              return {
                ...request,
                body,
                headers: {
                  'content-type': 'application/json',
                  'x-hub-signature-256': signature,
                  'x-timestamp': timestamp,
                  'x-github-delivery': id,
                },
              };
            },
          }
        : { method: 'GET', path: '/bare' },
    ],
  });
  return {
    requestsPerSec: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

async function webhookLoad(): Promise<LoadResult[]> {
  const child = fork(serverScript, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { url: string }).url));
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  try {
    await measure(url, true); // warm-up
    const bare = await measure(url, false);
    const hook = await measure(url, true);
    return [
      { store: 'sqlite', name: 'bare Fastify route (limit)', ...bare, ofBare: 1, target: '' },
      {
        store: 'sqlite',
        name: 'signed webhook -> durable pending',
        ...hook,
        ofBare: hook.requestsPerSec / bare.requestsPerSec,
        target: `≥ 5000/s p99 < 20 ms ${hook.requestsPerSec >= 5000 && hook.p99Ms < 20 && hook.non2xx === 0 ? 'ok' : 'MISSED'}`,
      },
    ];
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.send('stop');
    await exited;
  }
}

async function schedulerPrecision(): Promise<{
  p50: number;
  p99: number;
  max: number;
  fired: number;
}> {
  // The real runtime's start (its store, its durable record) on a server that does not listen:
  // what each fire costs on `weft server`, the execution then running in this process.
  const dataDir = mkdtempSync(`${tmpdir()}/weft-schedule-bench-`);
  // Opened as `weft server` opens it (WAL checkpoints in their own thread).
  const opened = await openStore({ kind: 'sqlite', dataDir, checkpoints: 'background' });
  const server = await buildServer(
    { dataDir, port: 0, logLevel: 'error' },
    {
      logger: false,
      store: opened.registry,
      routesStore: opened.routes,
      executionsStore: opened.executions,
      deploymentStore: opened.deployments,
      triggerStore: opened.triggers,
    },
  );
  const runtime = server.runtime!;
  const lags: number[] = [];
  const BENCH = keyPrincipal({ keyId: 'bench', owner: 'bench' });
  const scheduler = new Scheduler({
    store: opened.triggers,
    start: async (request) =>
      toExecutionRecord((await runtime.startExecution({ ...request, principal: BENCH })).execution),
    // As `weft server` starts them: the fires due together prepared ahead, committed on time.
    prepareStarts: async (requests) => {
      const prepared = await runtime.prepareExecutions(
        requests.map((r) => ({ ...r, principal: BENCH })),
      );
      return {
        commit: async () =>
          (await prepared.commit()).map((r) =>
            r.status === 'fulfilled'
              ? { status: 'fulfilled', value: toExecutionRecord(r.value.execution) }
              : r,
          ),
      };
    },
    onFire: ({ dueMs, firedMs }) => lags.push(firedMs - dueMs),
  });
  const due = new Date(Math.ceil(Date.now() / 1000) * 1000 + 10_000);
  const cron = `${due.getUTCSeconds()} ${due.getUTCMinutes()} ${due.getUTCHours()} * * *`;
  for (let i = 0; i < SCHEDULES; i++) {
    const trigger: ScheduleTrigger = { type: 'schedule', cron, timezone: 'UTC' };
    const workflow = {
      name: `s-${i}`,
      version: '1.0.0',
      inputs: {},
      triggers: [trigger],
      steps: [],
    } as unknown as WorkflowDefinition;
    await scheduler.register(workflow.name, [compileSchedule(workflow, trigger, 0)]);
  }
  if (Date.now() >= due.getTime())
    throw new Error('registering the schedules took longer than the 10 s lead');
  scheduler.start();
  const deadline = due.getTime() + 10_000;
  while (lags.length < SCHEDULES && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 20));
  await scheduler.stop();
  await server.close();
  await opened.executions.close();
  await opened.registry.close();
  const sorted = [...lags].sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? NaN,
    fired: lags.length,
  };
}

export async function run(): Promise<void> {
  const rows = process.env['WEFT_BENCH_SCHEDULER_ONLY'] ? [] : await webhookLoad();
  if (rows.length > 0) printLoadTable('webhook (64 connections, SQLite)', rows);
  const precision = await schedulerPrecision();
  console.log(`\nscheduler precision (${SCHEDULES} schedules due in the same second, SQLite)`);
  console.log('fired  p50 ms  p99 ms  max ms  target');
  console.log(
    `${String(precision.fired).padStart(5)}  ${precision.p50.toFixed(1).padStart(6)}  ${precision.p99.toFixed(1).padStart(6)}  ${precision.max.toFixed(1).padStart(6)}  p99 < 50 ms ${precision.p99 < 50 && precision.fired === SCHEDULES ? 'ok' : 'MISSED'}`,
  );
  const directory = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(directory, { recursive: true });
  const document = {
    suite: 'webhook',
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    seconds: SECONDS,
    webhook: rows,
    scheduler: { schedules: SCHEDULES, ...precision },
  };
  writeFileSync(`${directory}webhook.json`, `${JSON.stringify(document, null, 2)}\n`);
}
