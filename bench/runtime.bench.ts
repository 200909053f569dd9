/**
 * The runtime: a one-step workflow run in-process (local mode), through the server
 * with `Prefer: wait`, and started asynchronously then followed over SSE until
 * `workflow.completed`; p50/p99 latency and executions per second (one client, sequential) on
 * SQLite and PostgreSQL (when WEFT_TEST_DATABASE_URL is set); journaled steps per second of a
 * 1,000-step workflow. Actions run in-process (an echo), so the numbers are the runtime's own
 * cost. Next to the physical limits of the same run: a bare function call, a bare `node:http`
 * round trip and a bare one-row transaction on each database. The server runs in this process,
 * on loopback. Every case runs in each of `WEFT_BENCH_ROUNDS` rounds, the cases in a new seeded
 * order each round; the rate is the median of the rounds', with their min and max.
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
import { buildServer, createLocalKey } from '@weft/server';
import { dropTestSchema } from '@weft/store';
import { shuffler } from './harness.js';

const N = Number(process.env['WEFT_BENCH_EXECUTIONS'] ?? 300);
const ROUNDS = Number(process.env['WEFT_BENCH_ROUNDS'] ?? 5);
/** Operations of a one-step case per round: `WEFT_BENCH_EXECUTIONS` in all. */
const PER_ROUND = Math.max(1, Math.round(N / ROUNDS));
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

type Store = 'sqlite' | 'postgres';

/** One measured case: `once` is one operation, worth `per` units of `unit`. */
interface Case {
  name: string;
  store: string;
  unit: string;
  /** Operations per round. */
  count: number;
  /** Units per operation (1,000 journaled steps per run of the long workflow). */
  per: number;
  once: () => Promise<unknown>;
}

interface Row {
  case: string;
  store: string;
  p50_ms: number;
  p99_ms: number;
  per_second: number;
  min_per_second: number;
  max_per_second: number;
  unit: string;
}

/** What a suite set up and must take down. */
interface Fixture {
  cases: Case[];
  close: () => Promise<void>;
}

const echo = { invoke: async (call: { input: unknown }) => ({ output: call.input }) };

function limits(): Fixture {
  const fn = (x: number) => x + 1;
  const bare = createServer((_req, res) => res.end('{"status":"ok"}'));
  const agent = new Agent({ connections: 4 });
  const listening = new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const { workflow } = loadRequestedWorkflow({ workflow: ONE });
  return {
    cases: [
      {
        name: 'limit: bare function call',
        store: '-',
        unit: 'calls/s',
        count: PER_ROUND * 10,
        per: 1,
        once: async () => fn(1),
      },
      {
        name: 'limit: bare node:http round trip',
        store: '-',
        unit: 'requests/s',
        count: PER_ROUND,
        per: 1,
        once: async () => {
          await listening;
          const r = await request(`http://127.0.0.1:${(bare.address() as AddressInfo).port}/`, {
            dispatcher: agent,
          });
          await r.body.text();
        },
      },
      {
        name: 'one step, in-process (local mode)',
        store: '-',
        unit: 'executions/s',
        count: PER_ROUND * 10,
        per: 1,
        once: () => runWorkflow(workflow, {}, { invoker: echo }),
      },
    ],
    close: async () => {
      await agent.close();
      await new Promise((resolve) => bare.close(resolve));
    },
  };
}

/**
 * The physical limit of a journal: one-row transactions committed one after another on the
 * same database settings as the store (SQLite: WAL, `synchronous = NORMAL`; PostgreSQL:
 * `synchronous_commit = off`, as the journal's connections), each awaited as a step awaits its
 * journal write. A journaled step is compared to this (target ≥ 0.35×). On PostgreSQL also the
 * limit of an answer to `Prefer: wait`: a one-row transaction with a synchronous commit.
 */
async function bareTransactions(kind: Store): Promise<Fixture> {
  const data = JSON.stringify({ path: 's0', entry: { status: 'success', output: { i: 0 } } });
  const shape = {
    name: 'limit: bare one-row transaction',
    store: kind,
    unit: 'transactions/s',
    count: STEPS,
    per: 1,
  };
  if (kind === 'sqlite') {
    const BetterSqlite3 = (await import('better-sqlite3')).default;
    const dir = mkdtempSync(join(tmpdir(), 'weft-bench-bare-'));
    const db = new BetterSqlite3(join(dir, 'bare.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, data TEXT NOT NULL)');
    const insert = db.prepare('INSERT INTO t (data) VALUES (?)');
    const one = db.transaction(() => insert.run(data));
    return {
      cases: [{ ...shape, once: async () => one() }],
      close: async () => {
        db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const pg = (await import('pg')).default;
  const client = new pg.Client({
    connectionString: databaseUrl,
    options: '-c synchronous_commit=off',
  });
  await client.connect();
  await client.query('CREATE TEMP TABLE t (id bigserial PRIMARY KEY, data text NOT NULL)');
  // An answer to `Prefer: wait` waits for one synchronous commit (the end of the execution): a
  // flush of the write-ahead log to the disk, which a temporary table's commit never waits for.
  const durable = new pg.Client({ connectionString: databaseUrl });
  await durable.connect();
  const table = `weft_bench_durable_${process.pid}`;
  await durable.query(`CREATE TABLE ${table} (id bigserial PRIMARY KEY, data text NOT NULL)`);
  return {
    cases: [
      {
        ...shape,
        once: () =>
          client.query({ name: 'bare', text: 'INSERT INTO t (data) VALUES ($1)', values: [data] }),
      },
      {
        ...shape,
        name: 'limit: bare one-row transaction, synchronous commit',
        count: PER_ROUND,
        once: () =>
          durable.query({
            name: 'durable',
            text: `INSERT INTO ${table} (data) VALUES ($1)`,
            values: [data],
          }),
      },
    ],
    close: async () => {
      await client.end();
      await durable.query(`DROP TABLE ${table}`);
      await durable.end();
    },
  };
}

async function serverCases(kind: Store): Promise<Fixture> {
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
    return (await r.body.json()) as { status: string; execution_id: string };
  };
  const runtime = server.runtime!;
  const { workflow } = loadRequestedWorkflow({ workflow: MANY });
  return {
    cases: [
      {
        name: 'one step, Prefer: wait',
        store: kind,
        unit: 'executions/s',
        count: PER_ROUND,
        per: 1,
        once: async () => {
          const record = await post('wait=10');
          if (record.status !== 'completed') throw new Error(`status ${record.status}`);
        },
      },
      {
        name: 'one step, async + SSE to workflow.completed',
        store: kind,
        unit: 'executions/s',
        count: PER_ROUND,
        per: 1,
        once: async () => {
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
        },
      },
      {
        name: `${STEPS}-step workflow (per step)`,
        store: kind,
        unit: 'journaled steps/s',
        count: 1,
        per: STEPS,
        once: async () => {
          const started = await runtime.startExecution({
            workflow,
            trigger: { type: 'api' },
            principal: keyPrincipal({ keyId: 'bench', owner: 'bench' }),
          });
          const done = await started.done;
          if (done?.status !== 'completed') throw new Error(`status ${done?.status}`);
        },
      },
    ],
    close: async () => {
      await agent.close();
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
      if (kind === 'postgres') await dropTestSchema(databaseUrl!, schema);
    },
  };
}

const at = (sorted: readonly number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

/** Runs every case in every round, in a new order each round; one row per case. */
async function measure(cases: readonly Case[]): Promise<Row[]> {
  // Warm-up: a tenth of a round of each (at least one operation).
  for (const c of cases)
    for (let i = 0; i < Math.max(1, Math.ceil(c.count / 10)); i++) await c.once();
  const times: number[][] = cases.map(() => []);
  const rates: number[][] = cases.map(() => []);
  const shuffle = shuffler(5);
  const order = cases.map((_, i) => i);
  for (let round = 0; round < ROUNDS; round++) {
    for (const i of shuffle(order)) {
      const c = cases[i]!;
      const started = performance.now();
      for (let k = 0; k < c.count; k++) {
        const t = performance.now();
        await c.once();
        times[i]!.push((performance.now() - t) / c.per);
      }
      rates[i]!.push(((c.count * c.per) / (performance.now() - started)) * 1000);
    }
  }
  return cases.map((c, i) => {
    const sorted = times[i]!.sort((a, b) => a - b);
    const perRound = rates[i]!.sort((a, b) => a - b);
    return {
      case: c.name,
      store: c.store,
      p50_ms: Number(at(sorted, 0.5).toFixed(3)),
      p99_ms: Number(at(sorted, 0.99).toFixed(3)),
      per_second: Math.round(at(perRound, 0.5)),
      min_per_second: Math.round(perRound[0]!),
      max_per_second: Math.round(perRound[perRound.length - 1]!),
      unit: c.unit,
    };
  });
}

/** Journaled steps per second against bare transactions per second, for the table. */
function journalRatio(rows: readonly Row[], kind: Store): string | undefined {
  const steps = rows.find((r) => r.store === kind && r.unit === 'journaled steps/s');
  const bare = rows.find((r) => r.store === kind && r.case === 'limit: bare one-row transaction');
  if (!steps || !bare) return undefined;
  return `${kind}: journaled steps/s ÷ bare one-row transactions/s = ${(steps.per_second / bare.per_second).toFixed(2)}× (target ≥ 0.35×)`;
}

/** Runs the suite and prints its table. */
export async function run(): Promise<Row[]> {
  const stores: Store[] = databaseUrl ? ['sqlite', 'postgres'] : ['sqlite'];
  if (!databaseUrl) console.log('(PostgreSQL cases skipped: set WEFT_TEST_DATABASE_URL)');
  const fixtures = [limits()];
  for (const kind of stores) fixtures.push(await bareTransactions(kind), await serverCases(kind));
  let rows: Row[];
  try {
    rows = await measure(fixtures.flatMap((f) => f.cases));
  } finally {
    for (const fixture of fixtures) await fixture.close();
  }
  console.log(
    `\nruntime (${ROUNDS} rounds, cases shuffled each round; per_second: median of rounds)`,
  );
  console.table(rows);
  for (const kind of stores) {
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
