import { afterEach, beforeEach, expect, it } from 'vitest';
import { budgetPeriodAt, type BudgetCheck, type BudgetLedgerStore } from '@weft/core';

/** A ledger to test, a second one on the same data (another replica), and cleanup. */
export interface TestBudgetLedger {
  ledger: BudgetLedgerStore;
  replica(): Promise<BudgetLedgerStore>;
  dispose(): Promise<void>;
}

const NOW = Date.parse('2026-03-04T10:00:00Z');
const HOUR = 3_600_000;
const day = budgetPeriodAt('day', NOW).start;

const workflow = (maxCost?: number, maxTokens?: number): BudgetCheck => ({
  scope: { kind: 'workflow', owner: 'acme', workflow: 'triage' },
  limits: { maxCost, maxTokens, period: 'day' },
  periodStart: day,
});
const workspace = (maxCost?: number, maxTokens?: number): BudgetCheck => ({
  scope: { kind: 'workspace', owner: 'acme' },
  limits: { maxCost, maxTokens, period: 'day' },
  periodStart: day,
});

/** The contract of `BudgetLedgerStore`, the same on SQLite and PostgreSQL. */
export function budgetLedgerContract(open: () => Promise<TestBudgetLedger>): void {
  let t: TestBudgetLedger;
  beforeEach(async () => {
    t = await open();
  });
  afterEach(async () => {
    await t.dispose();
  });

  const row = async (scope: string, periodStart = day) =>
    (await t.ledger.usage([{ scope, periodStart }]))[0]!;

  it('reserves within the limits, and refuses what would cross one with the row as it was', async () => {
    const ok = await t.ledger.reserve(
      'r1',
      [workflow(1)],
      { costUsd: 0.6, tokens: 10 },
      NOW + HOUR,
      NOW,
    );
    expect(ok).toEqual({ ok: true });
    const refused = await t.ledger.reserve(
      'r2',
      [workflow(1)],
      { costUsd: 0.5, tokens: 10 },
      NOW + HOUR,
      NOW,
    );
    expect(refused).toMatchObject({ ok: false, limit: 'maxCost' });
    if (!refused.ok) expect(refused.usage).toMatchObject({ reservedCostUsd: 0.6, spentCostUsd: 0 });
    expect(await row('workflow:acme/triage')).toMatchObject({
      spentCostUsd: 0,
      reservedCostUsd: 0.6,
      reservedTokens: 10,
    });
  });

  it('reserves in every budget named or in none', async () => {
    await t.ledger.reserve(
      'r1',
      [workspace(undefined, 100)],
      { costUsd: 0, tokens: 90 },
      NOW + HOUR,
      NOW,
    );
    const refused = await t.ledger.reserve(
      'r2',
      [workflow(10), workspace(undefined, 100)],
      { costUsd: 1, tokens: 20 },
      NOW + HOUR,
      NOW,
    );
    expect(refused).toMatchObject({ ok: false, limit: 'maxTokens' });
    if (!refused.ok) expect(refused.check.scope).toEqual({ kind: 'workspace', owner: 'acme' });
    expect(await row('workflow:acme/triage')).toMatchObject({
      reservedCostUsd: 0,
      reservedTokens: 0,
    });
    expect(await row('workspace:acme')).toMatchObject({ reservedTokens: 90 });
  });

  it('settles: the reservation is released and the real spend counted', async () => {
    await t.ledger.reserve(
      'r1',
      [workflow(1), workspace(5)],
      { costUsd: 0.9, tokens: 900 },
      NOW + HOUR,
      NOW,
    );
    await t.ledger.settle('r1', [workflow(1), workspace(5)], { costUsd: 0.25, tokens: 300 });
    for (const scope of ['workflow:acme/triage', 'workspace:acme']) {
      expect(await row(scope)).toEqual({
        scope,
        periodStart: day,
        spentCostUsd: 0.25,
        spentTokens: 300,
        reservedCostUsd: 0,
        reservedTokens: 0,
      });
    }
    // What is left fits again; past it does not.
    expect(
      (await t.ledger.reserve('r2', [workflow(1)], { costUsd: 0.75, tokens: 1 }, NOW + HOUR, NOW))
        .ok,
    ).toBe(true);
    expect(
      (
        await t.ledger.reserve(
          'r3',
          [workflow(1)],
          { costUsd: 0.000001, tokens: 1 },
          NOW + HOUR,
          NOW,
        )
      ).ok,
    ).toBe(false);
  });

  it('releases a reservation left by a crashed call once it expired', async () => {
    await t.ledger.reserve('crashed', [workflow(1)], { costUsd: 1, tokens: 5 }, NOW + HOUR, NOW);
    expect(
      (
        await t.ledger.reserve(
          'r2',
          [workflow(1)],
          { costUsd: 0.5, tokens: 1 },
          NOW + 2 * HOUR,
          NOW + HOUR - 1,
        )
      ).ok,
    ).toBe(false);
    expect(
      (
        await t.ledger.reserve(
          'r3',
          [workflow(1)],
          { costUsd: 0.5, tokens: 1 },
          NOW + 2 * HOUR,
          NOW + HOUR,
        )
      ).ok,
    ).toBe(true);
    expect(await row('workflow:acme/triage')).toMatchObject({
      reservedCostUsd: 0.5,
      reservedTokens: 1,
    });
    // Settled late, the crashed call's real spend still counts; nothing is released twice.
    await t.ledger.settle('crashed', [workflow(1)], { costUsd: 0.1, tokens: 2 });
    expect(await row('workflow:acme/triage')).toMatchObject({
      spentCostUsd: 0.1,
      reservedCostUsd: 0.5,
      reservedTokens: 1,
    });
  });

  it('counts each period apart', async () => {
    const next = budgetPeriodAt('day', NOW + 24 * HOUR).start;
    await t.ledger.reserve('r1', [workflow(1)], { costUsd: 1, tokens: 1 }, NOW + HOUR, NOW);
    await t.ledger.settle('r1', [workflow(1)], { costUsd: 1, tokens: 1 });
    expect(
      (await t.ledger.reserve('r2', [workflow(1)], { costUsd: 0.1, tokens: 1 }, NOW + HOUR, NOW))
        .ok,
    ).toBe(false);
    const tomorrow = { ...workflow(1), periodStart: next };
    expect(
      (
        await t.ledger.reserve(
          'r3',
          [tomorrow],
          { costUsd: 1, tokens: 1 },
          NOW + 25 * HOUR,
          NOW + 24 * HOUR,
        )
      ).ok,
    ).toBe(true);
    expect(await row('workflow:acme/triage', next)).toMatchObject({
      reservedCostUsd: 1,
      spentCostUsd: 0,
    });
  });

  it('lets replicas racing for the last dollar reserve it once', async () => {
    const other = await t.replica();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        (i % 2 ? other : t.ledger).reserve(
          `race-${i}`,
          [workflow(3)],
          { costUsd: 1, tokens: 1 },
          NOW + HOUR,
          NOW,
        ),
      ),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(3);
    expect(await row('workflow:acme/triage')).toMatchObject({
      reservedCostUsd: 3,
      reservedTokens: 3,
    });
  });

  it('keeps workspace budgets: set, replace, read, delete', async () => {
    expect(await t.ledger.getWorkspaceBudget('acme')).toBeUndefined();
    await t.ledger.setWorkspaceBudget({
      owner: 'acme',
      maxCost: 25,
      period: 'week',
      updatedAt: '2026-03-04T10:00:00.000Z',
      updatedBy: 'key1',
    });
    await t.ledger.setWorkspaceBudget({
      owner: 'acme',
      maxTokens: 2_000_000,
      period: 'month',
      updatedAt: '2026-03-04T11:00:00.000Z',
      updatedBy: 'key2',
    });
    expect(await t.ledger.getWorkspaceBudget('acme')).toEqual({
      owner: 'acme',
      maxTokens: 2_000_000,
      period: 'month',
      updatedAt: '2026-03-04T11:00:00.000Z',
      updatedBy: 'key2',
    });
    expect(await t.ledger.getWorkspaceBudget('other')).toBeUndefined();
    expect(await t.ledger.deleteWorkspaceBudget('acme')).toBe(true);
    expect(await t.ledger.deleteWorkspaceBudget('acme')).toBe(false);
    expect(await t.ledger.getWorkspaceBudget('acme')).toBeUndefined();
  });
}
