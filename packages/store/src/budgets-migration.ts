import type { Kysely, Migration } from 'kysely';
import type { Dialect } from './database.js';

/** `budget_ledger`: spend per budget and period (amounts of USD in nano-dollars, exact). */
export interface BudgetLedgerTable {
  /** `workflow:<owner>/<name>` or `workspace:<owner>`. */
  scope: string;
  /** Start of the period (ISO, UTC). */
  period_start: string;
  spent_cost_nanos: number | string;
  spent_tokens: number | string;
  reserved_cost_nanos: number | string;
  reserved_tokens: number | string;
}

/** `budget_reservations`: what a model call in flight holds in each budget it was checked in. */
export interface BudgetReservationsTable {
  id: string;
  scope: string;
  period_start: string;
  cost_nanos: number | string;
  tokens: number | string;
  /** When it is released if never settled (ms since the epoch). */
  expires_at: number | string;
}

/** `workspace_budgets`: an owner's budget as an admin set it. */
export interface WorkspaceBudgetsTable {
  owner: string;
  max_cost: number | null;
  max_tokens: number | string | null;
  period: string;
  updated_at: string;
  updated_by: string;
}

/** The tables of budgets across runs. */
export interface BudgetTables {
  budget_ledger: BudgetLedgerTable;
  budget_reservations: BudgetReservationsTable;
  workspace_budgets: WorkspaceBudgetsTable;
}

/**
 * Migration `0024_budgets`: the ledger of budgets across runs (docs/agents.md#budgets-across-runs),
 * the reservations of calls in flight, and the workspace budgets admins set. Amounts are whole
 * numbers (nano-USD, tokens) so that the conditional update comparing them with a limit is exact.
 */
export function budgetsMigration(dialect: Dialect): Migration {
  const float = dialect === 'postgres' ? 'double precision' : 'real';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('budget_ledger')
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('period_start', 'text', (c) => c.notNull())
        .addColumn('spent_cost_nanos', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('spent_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('reserved_cost_nanos', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('reserved_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('budget_ledger_pk', ['scope', 'period_start'])
        .execute();
      await db.schema
        .createTable('budget_reservations')
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('period_start', 'text', (c) => c.notNull())
        .addColumn('cost_nanos', 'bigint', (c) => c.notNull())
        .addColumn('tokens', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('budget_reservations_pk', ['id', 'scope'])
        .execute();
      await db.schema
        .createIndex('budget_reservations_expiry')
        .on('budget_reservations')
        .columns(['scope', 'expires_at'])
        .execute();
      await db.schema
        .createTable('workspace_budgets')
        .addColumn('owner', 'text', (c) => c.primaryKey())
        .addColumn('max_cost', float)
        .addColumn('max_tokens', 'bigint')
        .addColumn('period', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('updated_by', 'text', (c) => c.notNull())
        .execute();
    },
  };
}
