import { Type, type Static } from '@weft/core/typebox';

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

/** The content checks a detector serves: `piiDetection`, `toxicityThreshold`, `blockedTopics`. */
export const CONTENT_CHECKS = ['pii', 'toxicity', 'topics'] as const;
/** One of {@link CONTENT_CHECKS}. */
export type ContentCheck = (typeof CONTENT_CHECKS)[number];

/**
 * The names of the built-in lexical detectors, present in every process: a workflow may always
 * choose them (or `default`, whatever detector serves the check in the process running it).
 */
export const LEXICAL_DETECTORS: Readonly<Record<ContentCheck, string>> = {
  pii: 'pii',
  toxicity: 'obscenity',
  topics: 'topics',
};

/** The detector names a process offers per check (`default` is always offered). */
export type DetectorNames = Readonly<Partial<Record<ContentCheck, readonly string[]>>>;

/** Pattern of detector names in `guardrails.detectors`: `default`, `obscenity`, `judge`… */
export const DETECTOR_NAME_PATTERN = '^[a-z][a-z0-9_.:-]{0,63}$';

const DetectorName = (check: string) =>
  Type.Optional(
    Type.String({
      pattern: DETECTOR_NAME_PATTERN,
      description: `The detector of the ${check} check: default, ${LEXICAL_DETECTORS[check as ContentCheck]} (the lexical one) or one the server offers (${check === 'toxicity' ? 'judge, moderation' : 'judge'})`,
      'x-expected': 'a detector name such as default, judge or moderation',
    }),
  );

/**
 * Workflow-level guardrails settings (docs/workflow-language.md#choosing-detectors): which
 * detector serves each content check for every step of the workflow.
 */
export const WorkflowGuardrails = Type.Object(
  {
    detectors: Type.Optional(
      Type.Object(
        {
          pii: DetectorName('pii'),
          toxicity: DetectorName('toxicity'),
          topics: DetectorName('topics'),
        },
        {
          additionalProperties: false,
          description: 'The detector of each content check (pii, toxicity, topics); unset: default',
        },
      ),
    ),
  },
  { additionalProperties: false, description: 'Guardrails settings of the whole workflow' },
);
export type WorkflowGuardrails = Static<typeof WorkflowGuardrails>;
