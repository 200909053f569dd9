/**
 * Budgets across runs (docs/agents.md#budgets-across-runs): what a live model call pays for the
 * ledger, one reservation before it and one settlement after, with one budget (the workflow's)
 * and two (the workflow's and the workspace's), on SQLite and on PostgreSQL (when
 * WEFT_TEST_DATABASE_URL is set). Next to the physical limit of the same run: a bare one-row
 * transaction on the same database. Target: the ledger adds at most 2 ms to a model call (1% of
 * a fast 200 ms model turn). Every case runs in each of `WEFT_BENCH_ROUNDS` rounds, in a new
 * seeded order each round; the table gives the median round with the min and max.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { budgetPeriodAt, type BudgetCheck } from '@weft/core';
import { dropTestSchema, openStore, type OpenedStore, type StoreOptions } from '@weft/store';
import { printTable, shuffler, writeResults, type BenchResult } from './harness.js';

const ROUNDS = Math.max(1, Number(process.env['WEFT_BENCH_ROUNDS'] ?? 5));
const CALLS = Math.max(1, Number(process.env['WEFT_BENCH_CALLS'] ?? 200));
const databaseUrl = process.env['WEFT_TEST_DATABASE_URL'];
/** The ledger's cost per model call may be 1% of a fast (200 ms) model turn. */
const TARGET_NS = 2_000_000;

interface Case {
  name: string;
  limit?: boolean;
  targetNs?: number;
  once: () => Promise<unknown>;
}

function checks(count: 1 | 2, now: number): BudgetCheck[] {
  const limits = { maxCost: 1e9, maxTokens: 1e15 };
  const workflow: BudgetCheck = {
    scope: { kind: 'workflow', owner: 'bench', workflow: 'triage' },
    limits: { ...limits, period: 'day' },
    periodStart: budgetPeriodAt('day', now).start,
  };
  const workspace: BudgetCheck = {
    scope: { kind: 'workspace', owner: 'bench' },
    limits: { ...limits, period: 'month' },
    periodStart: budgetPeriodAt('month', now).start,
  };
  return count === 1 ? [workflow] : [workflow, workspace];
}

/** The cases of one store: a reservation and its settlement per operation, and the limit. */
async function storeCases(
  label: string,
  options: StoreOptions,
): Promise<{ cases: Case[]; close: () => Promise<void> }> {
  const opened: OpenedStore = await openStore(options);
  const { budgets } = opened;
  let n = 0;
  const call = (count: 1 | 2) => async () => {
    const now = Date.now();
    const id = `bench-${++n}`;
    const held = checks(count, now);
    const reserved = await budgets.reserve(
      id,
      held,
      { costUsd: 0.002, tokens: 5_000 },
      now + 3_600_000,
      now,
    );
    if (!reserved.ok) throw new Error('the bench budget refused a call');
    await budgets.settle(id, held, { costUsd: 0.001, tokens: 1_200 });
  };
  const bare = await bareTransaction(options);
  return {
    cases: [
      { name: `${label}: limit: bare one-row transaction`, limit: true, once: bare.once },
      { name: `${label}: reserve + settle, 1 budget`, targetNs: TARGET_NS, once: call(1) },
      { name: `${label}: reserve + settle, 2 budgets`, targetNs: TARGET_NS, once: call(2) },
    ],
    close: async () => {
      await bare.close();
      await opened.executions.close();
      await opened.registry.close();
    },
  };
}

/** One-row transactions on the same database, one after another, each awaited. */
async function bareTransaction(
  options: StoreOptions,
): Promise<{ once: () => Promise<unknown>; close: () => Promise<void> }> {
  if (options.kind === 'sqlite') {
    const BetterSqlite3 = (await import('better-sqlite3')).default;
    const db = new BetterSqlite3(join(options.dataDir, 'bare.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)');
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    const one = db.transaction(() => insert.run(1));
    return { once: async () => one(), close: async () => void db.close() };
  }
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: options.url });
  await client.connect();
  await client.query('CREATE TEMP TABLE t (id bigserial PRIMARY KEY, v integer NOT NULL)');
  return {
    once: () => client.query({ name: 'bare', text: 'INSERT INTO t (v) VALUES ($1)', values: [1] }),
    close: () => client.end(),
  };
}

export async function run(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'weft-bench-budgets-'));
  const schema = `weft_bench_budgets_${process.pid}`;
  const fixtures = [await storeCases('sqlite', { kind: 'sqlite', dataDir })];
  if (databaseUrl) {
    fixtures.push(await storeCases('postgres', { kind: 'postgres', url: databaseUrl, schema }));
  } else {
    console.log('budgets: PostgreSQL skipped (set WEFT_TEST_DATABASE_URL to run it)');
  }
  try {
    const cases = fixtures.flatMap((f) => f.cases);
    for (const c of cases) for (let i = 0; i < 20; i++) await c.once(); // warm-up
    const rounds = cases.map((): number[] => []);
    const shuffle = shuffler(17);
    const order = cases.map((_, i) => i);
    for (let round = 0; round < ROUNDS; round++) {
      for (const i of shuffle(order)) {
        const start = process.hrtime.bigint();
        for (let k = 0; k < CALLS; k++) await cases[i]!.once();
        rounds[i]!.push(Number(process.hrtime.bigint() - start) / CALLS);
      }
    }
    const median = (values: readonly number[]) =>
      [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const results: BenchResult[] = [];
    for (const fixture of fixtures) {
      const limitNs = median(rounds[cases.indexOf(fixture.cases[0]!)]!);
      for (const c of fixture.cases) {
        const ns = median(rounds[cases.indexOf(c)]!);
        results.push({
          name: c.name,
          nsPerOp: ns,
          opsPerSec: 1e9 / ns,
          ratioToLimit: ns / limitNs,
          targetNs: c.targetNs ?? null,
          roundsNs: rounds[cases.indexOf(c)]!,
        });
      }
    }
    printTable('budgets: the ledger per model call (reserve, then settle)', results);
    writeResults('budgets', results, { rounds: ROUNDS });
  } finally {
    for (const fixture of fixtures) await fixture.close();
    rmSync(dataDir, { recursive: true, force: true });
    if (databaseUrl) await dropTestSchema(databaseUrl, schema);
  }
}
