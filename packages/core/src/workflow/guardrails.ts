import { Type, type Static } from '@sinclair/typebox';

/**
 * The kinds of personal data `piiDetection` looks for (docs/workflow-language.md#guardrails).
 * `true` means all of them; a list picks some.
 */
export const PII_KINDS = ['email', 'phone', 'credit_card', 'iban', 'ip_address', 'us_ssn'] as const;
/** One of {@link PII_KINDS}. */
export type PiiKind = (typeof PII_KINDS)[number];

/** The guardrails that only mean something on an agent step (budgets of model turns). */
export const AGENT_ONLY_GUARDRAILS = ['maxCost', 'maxTokens', 'maxToolCalls'] as const;

/** Guardrails of a step (docs/workflow-language.md#guardrails); they override the agent's defaults. */
export const Guardrails = Type.Object(
  {
    piiDetection: Type.Optional(
      Type.Union(
        [
          Type.Boolean(),
          Type.Array(Type.Union(PII_KINDS.map((kind) => Type.Literal(kind))), {
            minItems: 1,
            uniqueItems: true,
          }),
        ],
        {
          description:
            'Block the step if personal data appears in its output: true for every kind, or a ' +
            `list of kinds (${PII_KINDS.join(', ')})`,
        },
      ),
    ),
    toxicityThreshold: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1,
        description: 'Toxicity score (0..1) above which output is blocked',
      }),
    ),
    blockedTopics: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
        maxItems: 200,
        description: 'Topics the output must not touch',
      }),
    ),
    maxCost: Type.Optional(Type.Number({ minimum: 0, description: 'USD per execution' })),
    maxTokens: Type.Optional(Type.Integer({ minimum: 1, description: 'Token budget' })),
    maxToolCalls: Type.Optional(Type.Integer({ minimum: 0, description: 'Tool-call budget' })),
    timeLimit: Type.Optional(Type.Integer({ minimum: 1, description: 'Seconds' })),
    outputSchema: Type.Optional(
      Type.Object(
        {
          type: Type.String({ minLength: 1, description: 'JSON type of the output, e.g. object' }),
          required: Type.Optional(
            Type.Array(Type.String(), { description: 'Properties the output must have' }),
          ),
        },
        {
          additionalProperties: true,
          description: 'JSON Schema the output must match (other JSON Schema keywords allowed)',
        },
      ),
    ),
  },
  { additionalProperties: false, description: 'Guardrails for the step' },
);
export type Guardrails = Static<typeof Guardrails>;
