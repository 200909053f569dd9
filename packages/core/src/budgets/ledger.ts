import type { BudgetPeriod } from '../workflow/budgets.js';

/** The limits of one budget: at least one of them, over a period. */
export interface BudgetLimits {
  readonly maxCost?: number | undefined;
  readonly maxTokens?: number | undefined;
  readonly period: BudgetPeriod;
}

/**
 * What a budget covers: the agent steps of one workflow of an owner, or all of an owner's
 * workspace. Its key in the ledger is {@link budgetScopeKey}.
 */
export type BudgetScope =
  | { readonly kind: 'workflow'; readonly owner: string; readonly workflow: string }
  | { readonly kind: 'workspace'; readonly owner: string };

/** `workflow:<owner>/<name>` or `workspace:<owner>`. */
export function budgetScopeKey(scope: BudgetScope): string {
  return scope.kind === 'workflow'
    ? `workflow:${scope.owner}/${scope.workflow}`
    : `workspace:${scope.owner}`;
}

/** A budget a reservation must fit in: its scope, limits, and the period it counts in now. */
export interface BudgetCheck {
  readonly scope: BudgetScope;
  readonly limits: BudgetLimits;
  /** Start of the current period (ISO, UTC), see `budgetPeriodAt`. */
  readonly periodStart: string;
}

/** An amount of spend: USD and model tokens. */
export interface BudgetAmount {
  readonly costUsd: number;
  readonly tokens: number;
}

/** What a ledger row holds: the period's spend, and what is reserved by calls in flight. */
export interface BudgetUsage {
  readonly scope: string;
  readonly periodStart: string;
  readonly spentCostUsd: number;
  readonly spentTokens: number;
  readonly reservedCostUsd: number;
  readonly reservedTokens: number;
}

/** The answer of {@link BudgetLedgerStore.reserve}. */
export type ReserveResult =
  | { readonly ok: true }
  | {
      readonly ok: false;
      /** The budget that would be crossed, and which of its limits. */
      readonly check: BudgetCheck;
      readonly limit: 'maxCost' | 'maxTokens';
      /** Its row before the refused reservation. */
      readonly usage: BudgetUsage;
    };

/** A workspace budget as an admin set it. */
export interface WorkspaceBudget extends BudgetLimits {
  readonly owner: string;
  readonly updatedAt: string;
  /** Who set it (the admin key's id). */
  readonly updatedBy: string;
}

/**
 * The ledger of budgets across runs (docs/agents.md#budgets-across-runs), in the store:
 * spend per budget and period, reserve then settle. Implementations make a reservation atomic
 * over all the budgets it names, so that concurrent callers (replicas) never reserve past a limit.
 */
export interface BudgetLedgerStore {
  /**
   * Reserves `amount` in every budget of `checks` at once, or in none: refused when one of them
   * would go past a limit with what it spent and holds reserved. `id` names the reservation for
   * {@link settle}; it is released by itself at `expiresAtMs` if never settled (a crashed call),
   * by the next reservation in the same budget after that time (`nowMs`).
   */
  reserve(
    id: string,
    checks: readonly BudgetCheck[],
    amount: BudgetAmount,
    expiresAtMs: number,
    nowMs: number,
  ): Promise<ReserveResult>;
  /**
   * Ends reservation `id`: what it held is released, and `spent` (the call's real usage) is
   * added to each budget in the period the reservation was made in, even when the reservation
   * had expired meanwhile.
   */
  settle(id: string, checks: readonly BudgetCheck[], spent: BudgetAmount): Promise<void>;
  /** The rows of `rows` (scope keys and period starts), in order; zeros for a row never written. */
  usage(rows: readonly { scope: string; periodStart: string }[]): Promise<BudgetUsage[]>;
  /** Sets (replaces) an owner's workspace budget. */
  setWorkspaceBudget(budget: WorkspaceBudget): Promise<void>;
  getWorkspaceBudget(owner: string): Promise<WorkspaceBudget | undefined>;
  /** Removes an owner's workspace budget; false when there was none. */
  deleteWorkspaceBudget(owner: string): Promise<boolean>;
}
