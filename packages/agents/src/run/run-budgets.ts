import { randomUUID } from 'node:crypto';
import {
  budgetPeriodAt,
  budgetScopeKey,
  UnavailableError,
  ValidationError,
  WeftError,
  type BudgetAmount,
  type BudgetCheck,
  type BudgetLedgerStore,
  type BudgetLimits,
  type BudgetScope,
} from '@weft/core';
import type { AgentCall } from '@weft/engine';
import type { AgentDefinition } from '../definition/schema.js';
import type { LiveCallTicket, LiveModelCall } from './contract.js';

/**
 * The output-token cap of each model call of an agent step under budgets across runs when its
 * agent sets no `max_output_tokens`: every call needs a cap for its cost to have an upper bound.
 */
export const DEFAULT_BUDGETED_OUTPUT_TOKENS = 4096;

/** How long a reservation holds when its call never settles (a crash): 1 hour. */
export const DEFAULT_RESERVATION_TTL_MS = 3_600_000;

/** What live model calls spent, for metrics (`weft_agent_cost_usd_total`, ...). */
export interface AgentSpend {
  readonly workflow: string;
  readonly owner: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Undefined when the agent has no pricing. */
  readonly costUsd: number | undefined;
}

/** Options of {@link BudgetsAcrossRuns}. */
export interface BudgetsAcrossRunsOptions {
  /** The ledger in the store; undefined: a step under budgets fails (they cannot be held). */
  ledger: BudgetLedgerStore | undefined;
  /** Milliseconds since the epoch: picks the period (tests roll it). Default `Date.now`. */
  now?: () => number;
  /** How long a reservation holds if its call never settles. Default 1 hour. */
  reservationTtlMs?: number;
  /** Sees what each live model call spent (metrics); called for steps without budgets too. */
  onSpend?: (spend: AgentSpend) => void;
  /** A settlement the ledger refused (the reservation then expires by itself). */
  onError?: (error: unknown) => void;
  /** What the ledger is, for errors (`the server's database`, `.weft/budgets.db`). */
  where?: string;
}

/** A budget that applies to a step: its scope and limits. */
interface Applying {
  readonly scope: BudgetScope;
  readonly limits: BudgetLimits;
}

/**
 * Budgets across runs (docs/agents.md#budgets-across-runs) for an {@link AgentRunner}: before
 * each live model call of an agent step, what the call can cost at most is reserved in every
 * budget over the step (its workflow's `budgets`, those of the workflows calling it, its
 * owner's workspace budget), and settled with the real usage after it.
 */
export class BudgetsAcrossRuns {
  private readonly now: () => number;
  private readonly ttl: number;

  constructor(private readonly options: BudgetsAcrossRunsOptions) {
    this.now = options.now ?? Date.now;
    this.ttl = options.reservationTtlMs ?? DEFAULT_RESERVATION_TTL_MS;
  }

  /**
   * The ledger of one agent step attempt: reads the owner's workspace budget (a ledger out of
   * reach fails the step before any call), and refuses a step under `maxCost` whose agent has
   * no pricing.
   */
  async forStep(call: AgentCall, agent: AgentDefinition): Promise<StepLedger> {
    const owner = call.run?.owner ?? 'local';
    const workflows = call.run?.workflows ?? [];
    const applying: Applying[] = [];
    for (const workflow of workflows) {
      if (workflow.budgets) {
        applying.push({
          scope: { kind: 'workflow', owner, workflow: workflow.name },
          limits: workflow.budgets,
        });
      }
    }
    const ledger = this.options.ledger;
    if (ledger) {
      let workspace;
      try {
        workspace = await ledger.getWorkspaceBudget(owner);
      } catch (error) {
        throw this.unreachable(error);
      }
      if (workspace) applying.push({ scope: { kind: 'workspace', owner }, limits: workspace });
    } else if (applying.length > 0) {
      throw new UnavailableError(
        'the workflow sets budgets, and no budget ledger is configured here to hold them: the agent step does not run',
        {
          backend: 'budgets',
          suggestion: 'run it on weft server, or with weft workflow run (a ledger under .weft/)',
        },
      );
    }
    if (agent.pricing === undefined) {
      const costed = applying.find((a) => a.limits.maxCost !== undefined);
      if (costed) {
        throw new ValidationError(
          `budgets.maxCost of ${describe(costed.scope)} needs the agent's pricing (input_per_million, output_per_million) to count cost; agent ${agent.namespace}/${agent.name} has none`,
          { field: 'agent.pricing', constraint: 'required', scope: costed.scope.kind },
        );
      }
    }
    return new StepLedger(this, ledger, applying, agent, workflows.at(-1)?.name ?? '', owner);
  }

  /** @internal */
  get clock(): () => number {
    return this.now;
  }

  /** @internal */
  get ttlMs(): number {
    return this.ttl;
  }

  /** @internal */
  spend(spend: AgentSpend): void {
    this.options.onSpend?.(spend);
  }

  /** @internal */
  settleFailed(error: unknown): void {
    this.options.onError?.(error);
  }

  /** @internal The error of a ledger out of reach: the call is denied. */
  unreachable(error: unknown): UnavailableError {
    const why = error instanceof Error ? error.message : String(error);
    return new UnavailableError(
      `the budget ledger (${this.options.where ?? 'the store'}) cannot be reached: the model call was not made (budgets fail closed): ${why}`,
      { backend: 'budgets', suggestion: 'retry when the database is back' },
    );
  }
}

/** One reservation of a live call, until its turn settles it. */
interface Pending {
  readonly id: string;
  readonly checks: readonly BudgetCheck[];
  readonly reserved: BudgetAmount;
  done: boolean;
}

/**
 * The budgets of one agent step attempt: reserves before each live call
 * ({@link reserve}, the backends' `reserveModelCall`), settles each answered call with the
 * usage of its turn ({@link settleTurn}), and at the end of the attempt counts a call that was
 * answered but never reported at what it reserved (the provider may bill it).
 */
export class StepLedger {
  private readonly pending: Pending[] = [];
  /** The first refusal: the step fails with it, whatever the backend made of it. */
  refusal: WeftError | undefined;

  constructor(
    private readonly owner_: BudgetsAcrossRuns,
    private readonly ledger: BudgetLedgerStore | undefined,
    private readonly applying: readonly Applying[],
    private readonly agent: AgentDefinition,
    private readonly workflow: string,
    private readonly owner: string,
  ) {}

  /** Whether budgets apply: every call then needs an output cap. */
  get budgeted(): boolean {
    return this.applying.length > 0;
  }

  /** Reserves what `call` can cost in every budget over the step, or refuses it. */
  async reserve(call: LiveModelCall): Promise<LiveCallTicket> {
    const pricing = this.agent.pricing;
    const output =
      call.maxOutputTokens ?? this.agent.max_output_tokens ?? DEFAULT_BUDGETED_OUTPUT_TOKENS;
    const input = call.requestBytes;
    if (this.budgeted && input === undefined) {
      throw this.refuse(
        new ValidationError(
          'the model request has no text body to bound its input tokens by: the call was not made under budgets',
          { field: 'budgets', constraint: 'estimate' },
        ),
      );
    }
    const reserved: BudgetAmount = {
      tokens: (input ?? 0) + output,
      costUsd: pricing
        ? ((input ?? 0) * pricing.input_per_million + output * pricing.output_per_million) / 1e6
        : 0,
    };
    const entry: Pending = { id: randomUUID(), checks: [], reserved, done: false };
    if (this.budgeted && this.ledger) {
      const nowMs = this.owner_.clock();
      const checks = this.applying.map((a) => ({
        ...a,
        periodStart: budgetPeriodAt(a.limits.period, nowMs).start,
      }));
      let result;
      try {
        result = await this.ledger.reserve(
          entry.id,
          checks,
          reserved,
          nowMs + this.owner_.ttlMs,
          nowMs,
        );
      } catch (error) {
        throw this.refuse(this.owner_.unreachable(error));
      }
      if (!result.ok) throw this.refuse(refusalOf(result, reserved, nowMs));
      (entry as { checks: readonly BudgetCheck[] }).checks = checks;
    }
    this.pending.push(entry);
    return { failed: () => this.finish(entry, undefined) };
  }

  /** Settles the oldest answered call with the usage its turn reports. */
  async settleTurn(inputTokens: number, outputTokens: number): Promise<void> {
    const entry = this.pending.find((p) => !p.done);
    if (!entry) return; // a turn answered from a record: settled when it was live
    await this.finish(entry, { inputTokens, outputTokens });
  }

  /** Ends the attempt: calls answered but never reported count at what they reserved. */
  async close(): Promise<void> {
    for (const entry of this.pending) {
      if (!entry.done) await this.finish(entry, 'reserved');
    }
  }

  private async finish(
    entry: Pending,
    usage: { inputTokens: number; outputTokens: number } | 'reserved' | undefined,
  ): Promise<void> {
    if (entry.done) return;
    entry.done = true;
    const pricing = this.agent.pricing;
    const spent: BudgetAmount =
      usage === undefined
        ? { costUsd: 0, tokens: 0 }
        : usage === 'reserved'
          ? entry.reserved
          : {
              tokens: usage.inputTokens + usage.outputTokens,
              costUsd: pricing
                ? (usage.inputTokens * pricing.input_per_million +
                    usage.outputTokens * pricing.output_per_million) /
                  1e6
                : 0,
            };
    if (usage !== undefined && usage !== 'reserved') {
      this.owner_.spend({
        workflow: this.workflow,
        owner: this.owner,
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
        costUsd: pricing ? spent.costUsd : undefined,
      });
    }
    if (entry.checks.length === 0 || !this.ledger) return;
    try {
      await this.ledger.settle(entry.id, entry.checks, spent);
    } catch (error) {
      this.owner_.settleFailed(error);
    }
  }

  private refuse(error: WeftError): WeftError {
    this.refusal ??= error;
    return error;
  }
}

function describe(scope: BudgetScope): string {
  return scope.kind === 'workflow'
    ? `workflow "${scope.workflow}"`
    : `the workspace of owner "${scope.owner}"`;
}

const round = (usd: number): number => Math.round(usd * 1e6) / 1e6;

/** The step's error for a refused reservation: VALIDATION on `budgets.<limit>`. */
function refusalOf(
  result: Extract<Awaited<ReturnType<BudgetLedgerStore['reserve']>>, { ok: false }>,
  reserved: BudgetAmount,
  nowMs: number,
): ValidationError {
  const { check, limit, usage } = result;
  const { period } = check.limits;
  const periodEnd = budgetPeriodAt(period, nowMs).end;
  const cost = limit === 'maxCost';
  const max = cost ? check.limits.maxCost! : check.limits.maxTokens!;
  const spent = cost ? round(usage.spentCostUsd) : usage.spentTokens;
  const held = cost ? round(usage.reservedCostUsd) : usage.reservedTokens;
  const need = cost ? round(reserved.costUsd) : reserved.tokens;
  const unit = cost ? ' USD' : ' tokens';
  return new ValidationError(
    `the model call was not made: it could use up to ${need}${unit}, and budgets.${limit} of ${describe(check.scope)} (${max}${unit} a ${period}) has ${spent}${unit} spent and ${held}${unit} reserved until ${periodEnd}`,
    {
      field: `budgets.${limit}`,
      constraint: limit,
      limit: max,
      spent,
      reserved: held,
      estimate: need,
      period,
      period_end: periodEnd,
      scope: check.scope.kind,
      owner: check.scope.owner,
      ...(check.scope.kind === 'workflow' ? { workflow: check.scope.workflow } : {}),
      budget: budgetScopeKey(check.scope),
    },
  );
}
