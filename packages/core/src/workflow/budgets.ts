import { Type, type Static } from '@weft/core/typebox';

/** The periods a budget counts over (UTC): a day, an ISO week (from Monday), a month. */
export const BUDGET_PERIODS = ['day', 'week', 'month'] as const;
/** One of {@link BUDGET_PERIODS}. */
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

/**
 * Budgets of a workflow across its runs (docs/agents.md#budgets-across-runs): what all its agent
 * steps may spend in the current period, whatever run, retry or `for_each` item spends it. At
 * least one of `maxCost` and `maxTokens`.
 */
export const WorkflowBudgets = Type.Object(
  {
    maxCost: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 1e9,
        description: 'USD all agent steps may spend in the period (at the agents’ pricing)',
        'x-expected': 'a positive number of USD',
      }),
    ),
    maxTokens: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1e15,
        description: 'Model tokens (input + output) all agent steps may use in the period',
        'x-expected': 'a positive whole number of tokens',
      }),
    ),
    period: Type.Union(
      BUDGET_PERIODS.map((p) => Type.Literal(p)),
      { description: 'What the limits count over (UTC): day, week (ISO, from Monday) or month' },
    ),
  },
  {
    additionalProperties: false,
    description: 'Spend limits of the agent steps across runs (at least maxCost or maxTokens)',
  },
);
export type WorkflowBudgets = Static<typeof WorkflowBudgets>;
