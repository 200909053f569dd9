import { ValidationError, type Guardrails, type InvocationUsage } from '@weft/core';
import type { AgentDefinition } from '../definition/schema.js';

/** Tokens of one model turn, as the backend reports them. */
export interface TurnUsage {
  inputTokens: number;
  outputTokens: number;
}

/** What a step spent: tokens, tool calls and USD. */
export interface Spent {
  inputTokens: number;
  outputTokens: number;
  toolCalls: number;
  costUsd: number;
}

/** The failure of a budget: `VALIDATION` on `guardrails.<name>`. */
export function budgetError(
  name: string,
  message: string,
  details: Record<string, unknown>,
): ValidationError {
  return new ValidationError(message, {
    field: `guardrails.${name}`,
    constraint: name,
    ...details,
  });
}

/**
 * What one agent step may still spend, and what it spent: `maxToolCalls` (tool calls of the
 * step), `maxTokens` (input + output tokens over the step's turns) and `maxCost` (USD from the
 * agent's `pricing`, over the whole execution: `spentBefore` is what the rest of the execution
 * spent). A retried step starts from what its failed attempts spent (`carried`).
 * Backends ask {@link admitToolCall} before each tool call (one at a time, even when a turn asks
 * for several), {@link outputCap} before each turn (the agent's own per-request cap; the limits
 * here are totals), and report each turn to {@link addTurn}.
 * The first limit reached is kept in {@link tripped}; the step fails with it.
 */
export class Budget {
  inputTokens = 0;
  outputTokens = 0;
  toolCalls = 0;
  costUsd = 0;
  /** Input tokens of the last turn: the next turn reads at least that much again. */
  private lastTurnTokens = 0;
  tripped: ValidationError | undefined;

  constructor(
    private readonly guardrails: Guardrails | undefined,
    private readonly pricing: AgentDefinition['pricing'],
    private readonly spentBefore: number,
    private readonly maxOutputTokens: number | undefined,
    /** What earlier attempts of the same step spent: budgets hold over the step, retries included. */
    carried?: Spent,
  ) {
    if (carried) {
      this.inputTokens = carried.inputTokens;
      this.outputTokens = carried.outputTokens;
      this.toolCalls = carried.toolCalls;
      this.costUsd = carried.costUsd;
    }
    if (guardrails?.maxCost !== undefined && pricing === undefined) {
      throw budgetError(
        'maxCost',
        "guardrails.maxCost needs the agent's pricing (input_per_million, output_per_million) to count cost",
        {},
      );
    }
  }

  /** Counts a tool call, or refuses it (and trips) when it would pass `maxToolCalls`. */
  admitToolCall(name: string): boolean {
    const max = this.guardrails?.maxToolCalls;
    if (max !== undefined && this.toolCalls >= max) {
      this.tripped ??= budgetError(
        'maxToolCalls',
        `the agent asked for tool call ${this.toolCalls + 1} (${name}) past guardrails.maxToolCalls ${max}; it was not run`,
        { limit: max, tool: name },
      );
      return false;
    }
    this.toolCalls++;
    return true;
  }

  /**
   * The most output tokens the next turn may write: the agent's own `max_output_tokens`, or
   * undefined (the provider's default). The step's `maxTokens` and `maxCost` are budgets over
   * all its turns, never a per-request cap: they are checked before each turn (trips, and 0,
   * when the next turn cannot fit: it reads at least what the last one read and wrote) and
   * after it ({@link addTurn}).
   */
  outputCap(): number | undefined {
    const nextInput = this.lastTurnTokens;
    const maxTokens = this.guardrails?.maxTokens;
    if (
      maxTokens !== undefined &&
      maxTokens - this.inputTokens - this.outputTokens - nextInput <= 0
    ) {
      this.tripped ??= budgetError(
        'maxTokens',
        `guardrails.maxTokens ${maxTokens} is spent (${this.inputTokens + this.outputTokens} tokens used, the next turn reads at least ${nextInput})`,
        { limit: maxTokens, used: this.inputTokens + this.outputTokens },
      );
      return 0;
    }
    const maxCost = this.guardrails?.maxCost;
    if (maxCost !== undefined && this.pricing) {
      const left =
        maxCost -
        this.spentBefore -
        this.costUsd -
        (nextInput * this.pricing.input_per_million) / 1e6;
      if (left <= 0) {
        this.tripped ??= budgetError(
          'maxCost',
          `guardrails.maxCost ${maxCost} USD is spent for this execution (${round(this.spentBefore + this.costUsd)} USD used)`,
          { limit: maxCost, used: round(this.spentBefore + this.costUsd) },
        );
        return 0;
      }
    }
    return this.maxOutputTokens;
  }

  /** Adds a finished turn; trips when it went over `maxTokens` or `maxCost`. */
  addTurn(turn: TurnUsage): void {
    this.inputTokens += turn.inputTokens;
    this.outputTokens += turn.outputTokens;
    this.lastTurnTokens = turn.inputTokens + turn.outputTokens;
    if (this.pricing) {
      this.costUsd +=
        (turn.inputTokens * this.pricing.input_per_million +
          turn.outputTokens * this.pricing.output_per_million) /
        1e6;
    }
    const maxTokens = this.guardrails?.maxTokens;
    const used = this.inputTokens + this.outputTokens;
    if (maxTokens !== undefined && used > maxTokens) {
      this.tripped ??= budgetError(
        'maxTokens',
        `the agent used ${used} tokens, over guardrails.maxTokens ${maxTokens}`,
        { limit: maxTokens, used },
      );
    }
    const maxCost = this.guardrails?.maxCost;
    if (maxCost !== undefined && this.spentBefore + this.costUsd > maxCost) {
      this.tripped ??= budgetError(
        'maxCost',
        `the execution spent ${round(this.spentBefore + this.costUsd)} USD, over guardrails.maxCost ${maxCost}`,
        { limit: maxCost, used: round(this.spentBefore + this.costUsd) },
      );
    }
  }

  /** What the step spent so far (to carry into its next attempt). */
  spent(): Spent {
    const { inputTokens, outputTokens, toolCalls, costUsd } = this;
    return { inputTokens, outputTokens, toolCalls, costUsd };
  }

  /** The step's usage as the engine sums it. */
  usage(): InvocationUsage {
    const usage: InvocationUsage = {
      input_tokens: this.inputTokens,
      output_tokens: this.outputTokens,
      total_tokens: this.inputTokens + this.outputTokens,
      tool_calls: this.toolCalls,
    };
    if (this.pricing) usage.cost_usd = round(this.costUsd);
    return usage;
  }
}

function round(usd: number): number {
  return Math.round(usd * 1e9) / 1e9;
}
