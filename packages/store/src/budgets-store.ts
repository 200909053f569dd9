import { sql, type Kysely } from 'kysely';
import {
  budgetScopeKey,
  type BudgetAmount,
  type BudgetCheck,
  type BudgetLedgerStore,
  type BudgetPeriod,
  type BudgetUsage,
  type ReserveResult,
  type WorkspaceBudget,
} from '@weft/core';
import type { Database, Dialect } from './database.js';

/** USD are stored as whole nano-dollars: sums and comparisons with a limit are exact. */
const NANOS = 1e9;

const toNanos = (usd: number): number => Math.round(usd * NANOS);
const num = (value: number | string | null): number => (value === null ? 0 : Number(value));

/** Thrown inside the reserving transaction to roll it back. */
class Refused {
  constructor(readonly result: ReserveResult & { ok: false }) {}
}

/**
 * The ledger of budgets across runs over Kysely, the same code on SQLite and PostgreSQL: a
 * reservation is one transaction of conditional `UPDATE`s (`... WHERE spent + reserved + x <=
 * limit`), one per budget it is checked in. On PostgreSQL the update of a row another
 * transaction holds waits for it and then evaluates its condition again on the new row, so two
 * replicas racing for the last dollar cannot both get it; on SQLite the writes of the
 * transaction are serialized by the database lock.
 */
export class KyselyBudgetLedger implements BudgetLedgerStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  async reserve(
    id: string,
    checks: readonly BudgetCheck[],
    amount: BudgetAmount,
    expiresAtMs: number,
    nowMs: number,
  ): Promise<ReserveResult> {
    const cost = Math.max(0, toNanos(amount.costUsd));
    const tokens = Math.max(0, Math.ceil(amount.tokens));
    // One order of rows for every transaction: two reservations never wait on each other.
    const ordered = [...checks].sort((a, b) =>
      budgetScopeKey(a.scope) < budgetScopeKey(b.scope) ? -1 : 1,
    );
    try {
      await this.transaction(async (trx) => {
        for (const check of ordered) {
          const scope = budgetScopeKey(check.scope);
          await releaseExpired(trx, scope, nowMs);
          await trx
            .insertInto('budget_ledger')
            .values({
              scope,
              period_start: check.periodStart,
              spent_cost_nanos: 0,
              spent_tokens: 0,
              reserved_cost_nanos: 0,
              reserved_tokens: 0,
            })
            .onConflict((oc) => oc.columns(['scope', 'period_start']).doNothing())
            .execute();
          const { maxCost, maxTokens } = check.limits;
          let update = trx
            .updateTable('budget_ledger')
            .set({
              reserved_cost_nanos: sql`reserved_cost_nanos + ${cost}`,
              reserved_tokens: sql`reserved_tokens + ${tokens}`,
            })
            .where('scope', '=', scope)
            .where('period_start', '=', check.periodStart);
          if (maxCost !== undefined) {
            update = update.where(
              sql<boolean>`spent_cost_nanos + reserved_cost_nanos + ${cost} <= ${toNanos(maxCost)}`,
            );
          }
          if (maxTokens !== undefined) {
            update = update.where(
              sql<boolean>`spent_tokens + reserved_tokens + ${tokens} <= ${maxTokens}`,
            );
          }
          const updated = await update.executeTakeFirst();
          if (Number(updated.numUpdatedRows) === 0) {
            const usage = (await readRows(trx, [{ scope, periodStart: check.periodStart }]))[0]!;
            const costOver =
              maxCost !== undefined &&
              toNanos(usage.spentCostUsd + usage.reservedCostUsd) + cost > toNanos(maxCost);
            throw new Refused({
              ok: false,
              check,
              limit: costOver || maxTokens === undefined ? 'maxCost' : 'maxTokens',
              usage,
            });
          }
          await trx
            .insertInto('budget_reservations')
            .values({
              id,
              scope,
              period_start: check.periodStart,
              cost_nanos: cost,
              tokens,
              expires_at: expiresAtMs,
            })
            .execute();
        }
      });
    } catch (error) {
      if (error instanceof Refused) return error.result;
      throw error;
    }
    return { ok: true };
  }

  async settle(id: string, checks: readonly BudgetCheck[], spent: BudgetAmount): Promise<void> {
    const cost = Math.max(0, toNanos(spent.costUsd));
    const tokens = Math.max(0, Math.round(spent.tokens));
    const ordered = [...checks].sort((a, b) =>
      budgetScopeKey(a.scope) < budgetScopeKey(b.scope) ? -1 : 1,
    );
    await this.transaction(async (trx) => {
      for (const check of ordered) {
        const scope = budgetScopeKey(check.scope);
        const held = await trx
          .deleteFrom('budget_reservations')
          .where('id', '=', id)
          .where('scope', '=', scope)
          .returning(['period_start', 'cost_nanos', 'tokens'])
          .executeTakeFirst();
        // An expired reservation was released already: only the real spend is added, in the
        // period it was made in.
        const periodStart = held?.period_start ?? check.periodStart;
        await trx
          .insertInto('budget_ledger')
          .values({
            scope,
            period_start: periodStart,
            spent_cost_nanos: 0,
            spent_tokens: 0,
            reserved_cost_nanos: 0,
            reserved_tokens: 0,
          })
          .onConflict((oc) => oc.columns(['scope', 'period_start']).doNothing())
          .execute();
        await trx
          .updateTable('budget_ledger')
          .set({
            spent_cost_nanos: sql`spent_cost_nanos + ${cost}`,
            spent_tokens: sql`spent_tokens + ${tokens}`,
            reserved_cost_nanos: sql`reserved_cost_nanos - ${held ? num(held.cost_nanos) : 0}`,
            reserved_tokens: sql`reserved_tokens - ${held ? num(held.tokens) : 0}`,
          })
          .where('scope', '=', scope)
          .where('period_start', '=', periodStart)
          .execute();
      }
    });
  }

  usage(rows: readonly { scope: string; periodStart: string }[]): Promise<BudgetUsage[]> {
    return readRows(this.db, rows);
  }

  async setWorkspaceBudget(budget: WorkspaceBudget): Promise<void> {
    const values = {
      owner: budget.owner,
      max_cost: budget.maxCost ?? null,
      max_tokens: budget.maxTokens ?? null,
      period: budget.period,
      updated_at: budget.updatedAt,
      updated_by: budget.updatedBy,
    };
    await this.db
      .insertInto('workspace_budgets')
      .values(values)
      .onConflict((oc) =>
        oc.column('owner').doUpdateSet({
          max_cost: values.max_cost,
          max_tokens: values.max_tokens,
          period: values.period,
          updated_at: values.updated_at,
          updated_by: values.updated_by,
        }),
      )
      .execute();
  }

  async getWorkspaceBudget(owner: string): Promise<WorkspaceBudget | undefined> {
    const row = await this.db
      .selectFrom('workspace_budgets')
      .selectAll()
      .where('owner', '=', owner)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      owner: row.owner,
      ...(row.max_cost !== null ? { maxCost: Number(row.max_cost) } : {}),
      ...(row.max_tokens !== null ? { maxTokens: Number(row.max_tokens) } : {}),
      period: row.period as BudgetPeriod,
      updatedAt: row.updated_at,
      updatedBy: row.updated_by,
    };
  }

  async deleteWorkspaceBudget(owner: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('workspace_budgets')
      .where('owner', '=', owner)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /**
   * Runs `work` in one transaction. SQLite: `BEGIN IMMEDIATE`, which takes the write lock at
   * once (waiting for it up to the busy timeout): a deferred transaction that read first could
   * not upgrade to a write while another connection wrote, and would fail `SQLITE_BUSY`.
   */
  private async transaction(work: (trx: Kysely<Database>) => Promise<void>): Promise<void> {
    if (this.dialect === 'postgres') {
      await this.db.transaction().execute(work);
      return;
    }
    await this.db.connection().execute(async (conn) => {
      await sql`BEGIN IMMEDIATE`.execute(conn);
      try {
        await work(conn);
      } catch (error) {
        await sql`ROLLBACK`.execute(conn);
        throw error;
      }
      await sql`COMMIT`.execute(conn);
    });
  }
}

/** Releases the reservations of `scope` that expired (their calls never settled: a crash). */
async function releaseExpired(trx: Kysely<Database>, scope: string, nowMs: number) {
  const expired = await trx
    .deleteFrom('budget_reservations')
    .where('scope', '=', scope)
    .where('expires_at', '<=', nowMs)
    .returning(['period_start', 'cost_nanos', 'tokens'])
    .execute();
  for (const row of expired) {
    await trx
      .updateTable('budget_ledger')
      .set({
        reserved_cost_nanos: sql`reserved_cost_nanos - ${num(row.cost_nanos)}`,
        reserved_tokens: sql`reserved_tokens - ${num(row.tokens)}`,
      })
      .where('scope', '=', scope)
      .where('period_start', '=', row.period_start)
      .execute();
  }
}

async function readRows(
  db: Kysely<Database>,
  rows: readonly { scope: string; periodStart: string }[],
): Promise<BudgetUsage[]> {
  if (rows.length === 0) return [];
  const found = await db
    .selectFrom('budget_ledger')
    .selectAll()
    .where((eb) =>
      eb.or(
        rows.map((r) =>
          eb.and([eb('scope', '=', r.scope), eb('period_start', '=', r.periodStart)]),
        ),
      ),
    )
    .execute();
  const byKey = new Map(found.map((f) => [`${f.scope}\n${f.period_start}`, f]));
  return rows.map((r) => {
    const row = byKey.get(`${r.scope}\n${r.periodStart}`);
    return {
      scope: r.scope,
      periodStart: r.periodStart,
      spentCostUsd: row ? num(row.spent_cost_nanos) / NANOS : 0,
      spentTokens: row ? num(row.spent_tokens) : 0,
      reservedCostUsd: row ? num(row.reserved_cost_nanos) / NANOS : 0,
      reservedTokens: row ? num(row.reserved_tokens) : 0,
    };
  });
}
