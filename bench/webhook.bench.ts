/**
 * Triggers under load.
 * 1. Signed webhook requests accepted end to end by the real server (HMAC verified, timestamp and
 *    delivery id checked, the execution's record durable in SQLite, the execution then run)
 *    under 64 connections (`http-load.ts`; the deliveries signed before the load), next to a
 *    bare Fastify route on the same server (the limit). The server runs in a child process.
 *    Each round runs both cases in a new seeded random order; the table gives the median round,
 *    with min–max of req/s and p99 over the rounds, the server's CPU per request
 *    (`process.cpuUsage` of the child, until its runs settled) and the load generator's.
 * 2. Scheduler precision: 1,000 schedules due in the same second, each fire starting an execution
 *    through the real runtime (durable record, then the run); fire time minus due time.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { httpLoad, requestBytes } from './http-load.js';
import { keyPrincipal, type ScheduleTrigger } from '@weft/core';
import { openStore } from '@weft/store';
import type { WorkflowDefinition } from '@weft/engine';
import { compileSchedule, Scheduler, toExecutionRecord } from '@weft/runtime';
import { percentile, printLoadTable, type LoadResult } from './registry/load.js';
import { buildServer } from '@weft/server';

const SECONDS = Number(process.env['WEFT_BENCH_SECONDS'] ?? 5);
const ROUNDS = Number(process.env['WEFT_BENCH_ROUNDS'] ?? 3);
const SCHEDULES = 1000;
const serverScript = fileURLToPath(new URL('./webhook/server.ts', import.meta.url));

/** More deliveries signed per second of load than this machine accepts (~5–7k/s). */
const SIGNED_PER_SECOND = 15_000;

/**
 * A new delivery as bytes: its own body, signed over `<timestamp>.<body>` (an accepted signature
 * is refused again within the replay window).
 */
function signedDelivery(): Buffer {
  const id = randomUUID();
  const timestamp = String(Math.floor(Date.now() / 1000));
  const body = JSON.stringify({ ref: 'refs/heads/main', commits: [{ id, message: 'bench' }] });
  const mac = createHmac('sha256', 'bench-secret').update(`${timestamp}.${body}`).digest('hex');
  const headers = {
    'content-type': 'application/json',
    'x-hub-signature-256': `sha256=${mac}`,
    'x-timestamp': timestamp,
    'x-github-delivery': id,
  };
  return requestBytes('POST', '/hooks/bench', headers, body);
}

const BARE = requestBytes('GET', '/bare');

async function measure(url: string, signed: boolean) {
  // Signed before the load starts (a sender signs on its own machine, not on the two cores it
  // shares here with the server); more are signed during the load only if these run out.
  const deliveries = signed
    ? Array.from({ length: SECONDS * SIGNED_PER_SECOND }, signedDelivery)
    : [];
  let next = 0;
  const result = await httpLoad(
    url,
    signed ? () => deliveries[next++] ?? signedDelivery() : () => BARE,
    SECONDS,
  );
  return { ...result, signedDuringLoad: Math.max(0, next - deliveries.length) };
}

type Measured = Awaited<ReturnType<typeof measure>> & { cpuUsPerRequest: number };

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

/** A seeded shuffle (the same orders run to run). */
function shuffler(): <T>(items: readonly T[]) => T[] {
  let seed = 32;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  return (items) => {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  };
}

async function webhookLoad(): Promise<{ rows: LoadResult[]; rounds: Record<string, Measured[]> }> {
  const child = fork(serverScript, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { url: string }).url));
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  const cpu = () =>
    new Promise<number>((resolve) => {
      const onMessage = (m: unknown) => {
        const micros = (m as { cpuMicros?: number }).cpuMicros;
        if (micros === undefined) return;
        child.off('message', onMessage);
        resolve(micros);
      };
      child.on('message', onMessage);
      child.send('cpu');
    });
  const rounds: Record<'bare' | 'hook', Measured[]> = { bare: [], hook: [] };
  try {
    await measure(url, true); // warm-up
    const shuffle = shuffler();
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of shuffle(['bare', 'hook'] as const)) {
        const before = await cpu();
        const result = await measure(url, name === 'hook');
        // The executions accepted last still run: their CPU is the webhook's too.
        await new Promise((resolve) => setTimeout(resolve, 500));
        const used = (await cpu()) - before;
        const requests = result.requestsPerSec * SECONDS;
        rounds[name].push({ ...result, cpuUsPerRequest: requests > 0 ? used / requests : NaN });
      }
    }
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.send('stop');
    await exited;
  }
  const typical = (list: Measured[]): Measured => {
    const middle = median(list.map((m) => m.requestsPerSec));
    return list.find((m) => m.requestsPerSec === middle)!;
  };
  const bare = typical(rounds.bare);
  const hook = typical(rounds.hook);
  const p99 = median(rounds.hook.map((m) => m.p99Ms));
  const non2xx = rounds.hook.reduce((n, m) => n + m.non2xx, 0);
  const rows: LoadResult[] = [
    { store: 'sqlite', name: 'bare Fastify route (limit)', ...bare, ofBare: 1, target: '' },
    {
      store: 'sqlite',
      name: 'signed webhook -> durable pending',
      ...hook,
      p99Ms: p99,
      ofBare: hook.requestsPerSec / bare.requestsPerSec,
      target: `≥ 5000/s p99 < 20 ms ${hook.requestsPerSec >= 5000 && p99 < 20 && non2xx === 0 ? 'ok' : 'MISSED'}`,
    },
  ];
  return { rows, rounds };
}

function printRounds(rounds: Record<string, Measured[]>): void {
  const range = (values: number[], digits: number) =>
    `${Math.min(...values).toFixed(digits)} / ${median(values).toFixed(digits)} / ${Math.max(...values).toFixed(digits)}`;
  console.log(`
over ${ROUNDS} rounds (min / median / max), cases shuffled each round`);
  for (const [name, list] of Object.entries(rounds)) {
    console.log(
      `${name.padEnd(5)} req/s ${range(
        list.map((m) => m.requestsPerSec),
        0,
      )}  p99 ms ${range(
        list.map((m) => m.p99Ms),
        0,
      )}  server CPU µs/request ${range(
        list.map((m) => m.cpuUsPerRequest),
        0,
      )}  load generator's ${range(
        list.map((m) => m.clientCpuUs),
        0,
      )}${list.some((m) => m.signedDuringLoad > 0) ? '  (some deliveries signed during the load)' : ''}`,
    );
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
  const load = process.env['WEFT_BENCH_SCHEDULER_ONLY'] ? undefined : await webhookLoad();
  const rows = load?.rows ?? [];
  if (load) {
    printLoadTable('webhook (64 connections, SQLite; the median round)', rows);
    printRounds(load.rounds);
  }
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
    rounds: ROUNDS,
    webhook: rows,
    webhookRounds: load?.rounds ?? {},
    scheduler: { schedules: SCHEDULES, ...precision },
  };
  writeFileSync(`${directory}webhook.json`, `${JSON.stringify(document, null, 2)}\n`);
}
