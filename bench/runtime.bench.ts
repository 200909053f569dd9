/**
 * The runtime: a one-step workflow run in-process (local mode), through the server
 * with `Prefer: wait`, and started asynchronously then followed over SSE until
 * `workflow.completed`; p50/p99 latency and executions per second (one client, sequential) on
 * SQLite and PostgreSQL (when WEFT_TEST_DATABASE_URL is set); journaled steps per second of a
 * 1,000-step workflow. Actions run in-process (an echo), so the numbers are the runtime's own
 * cost. Next to the physical limits of the same run: a bare function call and a
 * bare `node:http` round trip. The server runs in this process, on loopback.
 */
import { keyPrincipal } from '@weft/core';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { runWorkflow } from '@weft/engine';
import { loadRequestedWorkflow } from '@weft/runtime';
import { buildServer, createLocalKey, type BuiltServer } from '@weft/server';

const N = Number(process.env['WEFT_BENCH_EXECUTIONS'] ?? 300);
const STEPS = 1000;
const databaseUrl = process.env['WEFT_TEST_DATABASE_URL'];

const ONE = `workflows:
  - name: one
    steps:
      - { name: s, plugin: echo, action: run, input: { v: 1 } }
    outputs: { v: { value: '{{ steps.s.output.v }}' } }
`;
const MANY = `workflows:
  - name: many
    steps:
${Array.from({ length: STEPS }, (_, i) => `      - { name: s${i}, plugin: echo, action: run, input: { i: ${i} } }`).join('\n')}
`;

interface Row {
  case: string;
  store: string;
  p50_ms: number;
  p99_ms: number;
  per_second: number;
  unit: string;
}

const echo = { invoke: async (call: { input: unknown }) => ({ output: call.input }) };

async function measure(
  count: number,
  once: () => Promise<unknown>,
): Promise<{ p50: number; p99: number; perSecond: number }> {
  for (let i = 0; i < Math.min(50, count); i++) await once();
  const times: number[] = [];
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await once();
    times.push(performance.now() - t);
  }
  const total = performance.now() - started;
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  return { p50: at(0.5), p99: at(0.99), perSecond: (count / total) * 1000 };
}

function row(
  name: string,
  store: string,
  m: { p50: number; p99: number; perSecond: number },
  unit = 'executions/s',
): Row {
  return {
    case: name,
    store,
    p50_ms: Number(m.p50.toFixed(3)),
    p99_ms: Number(m.p99.toFixed(3)),
    per_second: Math.round(m.perSecond),
    unit,
  };
}

async function limits(): Promise<Row[]> {
  const fn = (x: number) => x + 1;
  const call = await measure(N, async () => fn(1));
  const bare = createServer((_req, res) => res.end('{"status":"ok"}'));
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const agent = new Agent({ connections: 4 });
  const url = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`;
  const http = await measure(N, async () => {
    const r = await request(url, { dispatcher: agent });
    await r.body.text();
  });
  await agent.close();
  await new Promise((resolve) => bare.close(resolve));
  return [
    row('limit: bare function call', '-', call, 'calls/s'),
    row('limit: bare node:http round trip', '-', http, 'requests/s'),
  ];
}

async function withServer(
  kind: 'sqlite' | 'postgres',
  body: (server: BuiltServer, url: string, key: string) => Promise<Row[]>,
): Promise<Row[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'weft-bench-runtime-'));
  const schema = `weft_bench_${process.pid}`;
  const options =
    kind === 'sqlite' ? { dataDir } : { databaseUrl: databaseUrl!, databaseSchema: schema };
  // Actions run in this process: the numbers are what the runtime itself costs (an action routed
  // to a connector service adds its own HTTP round trip).
  const server = await buildServer(
    { ...options, port: 0, logLevel: 'error' },
    { logger: false, runtime: { actions: { invoker: () => echo, unavailable: async () => [] } } },
  );
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
  const key = `Bearer ${(await createLocalKey(options, { name: 'bench' })).key}`;
  try {
    return await body(server, url, key);
  } finally {
    await server.close();
    if (kind === 'postgres') {
      const pg = (await import('pg')).default;
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    }
  }
}

async function serverCases(kind: 'sqlite' | 'postgres'): Promise<Row[]> {
  return withServer(kind, async (server, url, key) => {
    const agent = new Agent({ connections: 8 });
    const post = async (prefer?: string) => {
      const r = await request(`${url}/workflows/executions`, {
        method: 'POST',
        dispatcher: agent,
        headers: {
          authorization: key,
          'content-type': 'application/json',
          ...(prefer ? { prefer } : {}),
        },
        body: JSON.stringify({ workflow: ONE }),
      });
      const record = (await r.body.json()) as { status: string; execution_id: string };
      return record;
    };
    const wait = await measure(N, async () => {
      const record = await post('wait=10');
      if (record.status !== 'completed') throw new Error(`status ${record.status}`);
    });
    const sse = await measure(N, async () => {
      const { execution_id } = await post();
      const r = await request(`${url}/workflows/executions/${execution_id}/events`, {
        dispatcher: agent,
        headers: { authorization: key },
      });
      let text = '';
      for await (const chunk of r.body) {
        text += chunk.toString();
        if (text.includes('event: workflow.completed')) break;
      }
      r.body.destroy();
    });
    const runtime = server.runtime!;
    const { workflow } = loadRequestedWorkflow({ workflow: MANY });
    const journal = await measure(3, async () => {
      const started = await runtime.startExecution({
        workflow,
        trigger: { type: 'api' },
        principal: keyPrincipal({ keyId: 'bench', owner: 'bench' }),
      });
      const done = await started.done;
      if (done?.status !== 'completed') throw new Error(`status ${done?.status}`);
    });
    await agent.close();
    const perStep = {
      p50: journal.p50 / STEPS,
      p99: journal.p99 / STEPS,
      perSecond: journal.perSecond * STEPS,
    };
    return [
      row('one step, Prefer: wait', kind, wait),
      row('one step, async + SSE to workflow.completed', kind, sse),
      row(`${STEPS}-step workflow (per step)`, kind, perStep, 'journaled steps/s'),
    ];
  });
}

/**
 * The physical limit of a journal: one-row transactions committed one after another on the
 * same database settings as the store (SQLite: WAL, `synchronous = NORMAL`; PostgreSQL:
 * `synchronous_commit = off`, as the journal's connections), each awaited as a step awaits its
 * journal write. A journaled step is compared to this (target ≥ 0.35×).
 */
async function bareTransactions(kind: 'sqlite' | 'postgres'): Promise<Row> {
  const count = STEPS * 3;
  const data = JSON.stringify({ path: 's0', entry: { status: 'success', output: { i: 0 } } });
  if (kind === 'sqlite') {
    const BetterSqlite3 = (await import('better-sqlite3')).default;
    const dir = mkdtempSync(join(tmpdir(), 'weft-bench-bare-'));
    const db = new BetterSqlite3(join(dir, 'bare.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, data TEXT NOT NULL)');
    const insert = db.prepare('INSERT INTO t (data) VALUES (?)');
    const one = db.transaction(() => insert.run(data));
    const m = await measure(count, async () => one());
    db.close();
    rmSync(dir, { recursive: true, force: true });
    return row('limit: bare one-row transaction', kind, m, 'transactions/s');
  }
  const pg = (await import('pg')).default;
  const client = new pg.Client({
    connectionString: databaseUrl,
    options: '-c synchronous_commit=off',
  });
  await client.connect();
  await client.query('CREATE TEMP TABLE t (id bigserial PRIMARY KEY, data text NOT NULL)');
  const m = await measure(count, () =>
    client.query({ name: 'bare', text: 'INSERT INTO t (data) VALUES ($1)', values: [data] }),
  );
  await client.end();
  return row('limit: bare one-row transaction', kind, m, 'transactions/s');
}

/** Journaled steps per second against bare transactions per second, for the table. */
function journalRatio(rows: readonly Row[], kind: string): string | undefined {
  const steps = rows.find((r) => r.store === kind && r.unit === 'journaled steps/s');
  const bare = rows.find((r) => r.store === kind && r.unit === 'transactions/s');
  if (!steps || !bare) return undefined;
  return `${kind}: journaled steps/s ÷ bare one-row transactions/s = ${(steps.per_second / bare.per_second).toFixed(2)}× (target ≥ 0.35×)`;
}

/** Runs the suite and prints its table. */
export async function run(): Promise<Row[]> {
  const { workflow } = loadRequestedWorkflow({ workflow: ONE });
  const local = await measure(N * 10, () => runWorkflow(workflow, {}, { invoker: echo }));
  const rows = [...(await limits()), row('one step, in-process (local mode)', '-', local)];
  rows.push(await bareTransactions('sqlite'), ...(await serverCases('sqlite')));
  if (databaseUrl)
    rows.push(await bareTransactions('postgres'), ...(await serverCases('postgres')));
  else console.log('(PostgreSQL cases skipped: set WEFT_TEST_DATABASE_URL)');
  console.log('\nruntime');
  console.table(rows);
  for (const kind of ['sqlite', 'postgres']) {
    const ratio = journalRatio(rows, kind);
    if (ratio) console.log(ratio);
  }
  const dir = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'runtime.json'),
    `${JSON.stringify({ at: new Date().toISOString(), rows }, null, 2)}\n`,
  );
  return rows;
}
