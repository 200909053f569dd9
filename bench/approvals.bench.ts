/**
 * Approvals. The target: 1,000 waiting executions cost no CPU while they wait (no polling per
 * run).
 * 1. Idle CPU of this process (`process.cpuUsage`, user + system, per second of wall time) over
 *    `WEFT_BENCH_SECONDS` of doing nothing: before any server exists (the limit: Node idling),
 *    with the server (SQLite, its default timers) and no execution waiting, and with
 *    `WEFT_BENCH_WAITING` (1,000) executions waiting for approval on it.
 * 2. Over HTTP on loopback, p50/p99 of one approve → `workflow.completed` round trip (`POST
 *    .../approve`, then the event stream read until the run ended) next to a plain
 *    start → `workflow.completed` (`POST /workflows/executions`, then the same stream) and a bare
 *    `node:http` round trip; `WEFT_BENCH_EXECUTIONS` samples each. Actions run in-process (an
 *    echo), so the numbers are the runtime's own cost. The server runs in this process.
 * Rounds (`WEFT_BENCH_ROUNDS`, default 5): the HTTP samples are split into rounds, every case
 * once per round in a new seeded random order, and the table gives the min / median / max over
 * the rounds of each round's p50 (p99 over all samples). The idle windows cannot be shuffled
 * (each is a state the server goes through once: none waiting, then waiting, then canceled), so
 * each window is split into rounds of `WEFT_BENCH_SECONDS / rounds` and gives their min / median
 * / max.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { keyPrincipal } from '@weft/core';
import { loadRequestedWorkflow } from '@weft/runtime';
import { buildServer, createLocalKey } from '@weft/server';
import { shuffler } from './harness.js';

const SECONDS = Number(process.env['WEFT_BENCH_SECONDS'] ?? 5);
const WAITING = Number(process.env['WEFT_BENCH_WAITING'] ?? 1000);
const N = Number(process.env['WEFT_BENCH_EXECUTIONS'] ?? 200);
const ROUNDS = Math.max(1, Number(process.env['WEFT_BENCH_ROUNDS'] ?? 5));

const PLAIN = `workflows:
  - name: plain
    steps:
      - { name: s, plugin: echo, action: run, input: { v: 1 } }
`;
/** The same step behind an approval by a `lead` (started by `finance`), an hour to decide. */
const GUARDED = `workflows:
  - name: guarded
    authorization:
      enabled: true
      roles: [finance]
      approval: { required: true, approvers: [lead], timeout: 3600 }
    steps:
      - { name: s, plugin: echo, action: run, input: { v: 1 } }
`;

const echo = { invoke: async (call: { input: unknown }) => ({ output: call.input }) };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface CpuRow {
  case: string;
  waiting: number;
  cpu_ms_per_s_min: number;
  cpu_ms_per_s_median: number;
  cpu_ms_per_s_max: number;
  percent_of_a_core_median: number;
}

interface LatencyRow {
  case: string;
  p50_ms_min: number;
  p50_ms_median: number;
  p50_ms_max: number;
  p99_ms: number;
}

/** A latency case: one sequential call. */
interface LatencyCase {
  name: string;
  once: () => Promise<unknown>;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const ms = (value: number) => Number(value.toFixed(3));

/**
 * CPU this process used per second of wall time while idle for {@link SECONDS}, in
 * {@link ROUNDS} windows of equal length.
 */
async function idleCpu(name: string, waiting: number): Promise<CpuRow> {
  (globalThis as { gc?: () => void }).gc?.();
  await sleep(500);
  const perSecond: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const before = process.cpuUsage();
    const started = performance.now();
    await sleep((SECONDS * 1000) / ROUNDS);
    const used = process.cpuUsage(before);
    perSecond.push((used.user + used.system) / 1000 / ((performance.now() - started) / 1000));
  }
  return {
    case: name,
    waiting,
    cpu_ms_per_s_min: ms(Math.min(...perSecond)),
    cpu_ms_per_s_median: ms(median(perSecond)),
    cpu_ms_per_s_max: ms(Math.max(...perSecond)),
    percent_of_a_core_median: ms(median(perSecond) / 10),
  };
}

/**
 * {@link N} sequential calls of each case (after a warm-up of up to 20 each), split into
 * {@link ROUNDS} rounds with every case once per round in a new seeded order: min / median / max
 * of each round's p50, and the p99 of all calls, in ms.
 */
async function latencies(cases: LatencyCase[]): Promise<LatencyRow[]> {
  for (const c of cases) for (let i = 0; i < Math.min(20, N); i++) await c.once();
  const perRound = Math.max(1, Math.round(N / ROUNDS));
  const p50s = new Map(cases.map((c) => [c, [] as number[]]));
  const all = new Map(cases.map((c) => [c, [] as number[]]));
  const at = (values: number[], q: number) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  };
  const shuffle = shuffler(35);
  const order = [...cases];
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of shuffle(order)) {
      const times: number[] = [];
      for (let i = 0; i < perRound; i++) {
        const t = performance.now();
        await c.once();
        times.push(performance.now() - t);
      }
      p50s.get(c)!.push(at(times, 0.5));
      all.get(c)!.push(...times);
    }
  }
  return cases.map((c) => ({
    case: c.name,
    p50_ms_min: ms(Math.min(...p50s.get(c)!)),
    p50_ms_median: ms(median(p50s.get(c)!)),
    p50_ms_max: ms(Math.max(...p50s.get(c)!)),
    p99_ms: ms(at(all.get(c)!, 0.99)),
  }));
}

/** Runs the suite and prints its tables. */
export async function run(): Promise<{ cpu: CpuRow[]; latency: LatencyRow[] }> {
  const cpu = [await idleCpu('limit: this process idle, no server', 0)];
  const dataDir = mkdtempSync(join(tmpdir(), 'weft-bench-approvals-'));
  const server = await buildServer(
    { dataDir, port: 0, logLevel: 'error' },
    { logger: false, runtime: { actions: { invoker: () => echo, unavailable: async () => [] } } },
  );
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
  const key = async (name: string, roles: string[]) =>
    `Bearer ${(await createLocalKey({ dataDir }, { name, owner: 'bench', roles })).key}`;
  const clerk = await key('clerk', ['finance']);
  const lead = await key('lead', ['lead']);
  const agent = new Agent({ connections: 8 });
  const call = async (method: 'GET' | 'POST', path: string, auth: string, body?: unknown) => {
    const r = await request(`${url}${path}`, {
      method,
      dispatcher: agent,
      headers: { authorization: auth, 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const json = (await r.body.json()) as { execution_id: string; status: string };
    if (r.statusCode >= 300) throw new Error(`${method} ${path}: ${JSON.stringify(json)}`);
    return json;
  };
  /** Reads the event stream of `id` until `workflow.completed`. */
  const completed = async (id: string) => {
    const r = await request(`${url}/workflows/executions/${id}/events`, {
      dispatcher: agent,
      headers: { authorization: lead },
    });
    let text = '';
    for await (const chunk of r.body) {
      text += chunk.toString();
      if (text.includes('event: workflow.completed')) break;
    }
    r.body.destroy();
    if (!text.includes('"status":"completed"')) throw new Error(`${id} did not complete`);
  };

  try {
    await sleep(3000); // start-up work (migrations, first sweeps, JIT) out of the window
    cpu.push(await idleCpu('server idle, none waiting yet', 0));
    const runtime = server.runtime!;
    const { workflow } = loadRequestedWorkflow({ workflow: GUARDED });
    const principal = keyPrincipal({
      keyId: 'bench',
      owner: 'bench',
      name: 'clerk',
      roles: ['finance'],
    });
    const ids: string[] = [];
    for (let i = 0; i < WAITING; i += 100) {
      const batch = Array.from({ length: Math.min(100, WAITING - i) }, () =>
        runtime.startExecution({ workflow, trigger: { type: 'api' }, principal }),
      );
      for (const { execution } of await Promise.all(batch)) {
        if (execution.status !== 'waiting') throw new Error(`status ${execution.status}`);
        ids.push(execution.id);
      }
    }
    await sleep(1000);
    for (const round of [1, 2])
      cpu.push(
        await idleCpu(`server idle, ${WAITING} waiting for approval (window ${round})`, WAITING),
      );
    // The same store and history, none waiting any more: the control after.
    for (const id of ids) await runtime.cancel(id, 'bench');
    await sleep(1000);
    cpu.push(await idleCpu(`server idle, the ${WAITING} canceled: none waiting`, 0));

    const waitingRuns: string[] = [];
    const perRound = Math.max(1, Math.round(N / ROUNDS));
    for (let i = 0; i < perRound * ROUNDS + Math.min(20, N); i++)
      waitingRuns.push(
        (await call('POST', '/workflows/executions', clerk, { workflow: GUARDED })).execution_id,
      );
    const bare = createServer((_req, res) => res.end('{"status":"ok"}'));
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`;
    let rows: LatencyRow[];
    try {
      rows = await latencies([
        {
          name: 'limit: bare node:http round trip',
          once: async () => (await request(bareUrl, { dispatcher: agent })).body.text(),
        },
        {
          name: 'plain start → workflow.completed (POST, then SSE)',
          once: async () =>
            completed(
              (await call('POST', '/workflows/executions', lead, { workflow: PLAIN })).execution_id,
            ),
        },
        {
          name: 'approve → workflow.completed (POST approve, then SSE)',
          once: async () => {
            const id = waitingRuns.pop()!;
            await call('POST', `/workflows/executions/${id}/approve`, lead, {});
            await completed(id);
          },
        },
      ]);
    } finally {
      await new Promise((resolve) => bare.close(resolve));
    }
    console.log(
      `\napprovals: idle CPU over ${SECONDS} s in ${ROUNDS} windows (min / median / max), SQLite`,
    );
    console.table(cpu);
    console.log(
      `approvals: HTTP round trips on loopback, ${N} sequential samples each in ${ROUNDS} shuffled rounds (p50 of a round min / median / max; p99 of all)`,
    );
    console.table(rows);
    const dir = fileURLToPath(new URL('./results/', import.meta.url));
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'approvals.json'),
      `${JSON.stringify({ at: new Date().toISOString(), seconds: SECONDS, rounds: ROUNDS, cpu, latency: rows }, null, 2)}\n`,
    );
    return { cpu, latency: rows };
  } finally {
    await agent.close();
    await server.close();
  }
}
