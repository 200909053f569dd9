import { Type, type Static } from '@weft/core/typebox';
import { Guardrails, ToolApproval } from '@weft/core';

/** `<provider>:<model id>`: the providers weft speaks to. */
export const MODEL_PATTERN = '^(openai|anthropic|openai-compatible):[^\\s]{1,200}$';

/** A tool: `plugin.action`, or an action of a connector, optionally renamed for the model. */
export const AgentTool = Type.Union([
  Type.String({
    pattern: '^[a-z0-9][a-z0-9_-]*\\.[A-Za-z_][A-Za-z0-9_-]*$',
    description: 'plugin.action',
    'x-expected': 'plugin.action, e.g. crm.lookup_customer',
  }),
  Type.Object(
    {
      connector: Type.Optional(
        Type.String({
          pattern: '^connector:[a-z0-9][a-z0-9_-]*/[a-z0-9][a-z0-9_.-]*@.+$',
          'x-expected': 'a connector reference connector:<namespace>/<name>@<version>',
        }),
      ),
      plugin: Type.Optional(Type.String({ pattern: '^[a-z0-9][a-z0-9_-]*$' })),
      action: Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_-]*$' }),
      name: Type.Optional(
        Type.String({
          pattern: '^[A-Za-z0-9_-]{1,64}$',
          description: 'The name the model knows the tool by',
          'x-expected': 'letters, digits, _ and -, at most 64',
        }),
      ),
      description: Type.Optional(Type.String({ maxLength: 2000 })),
      approval: Type.Optional(ToolApproval),
    },
    { additionalProperties: false },
  ),
]);
export type AgentTool = Static<typeof AgentTool>;

/** The body of an agent definition file (`agent:` at the top). See docs/agents.md. */
export const AgentDefinition = Type.Object(
  {
    namespace: Type.String({
      pattern: '^[a-z0-9][a-z0-9_-]*$',
      maxLength: 64,
      'x-expected': 'lowercase letters, digits, _ and -',
    }),
    name: Type.String({
      pattern: '^[a-z0-9][a-z0-9_.-]*$',
      maxLength: 64,
      'x-expected': 'lowercase letters, digits, _, . and -',
    }),
    version: Type.String({ minLength: 5, maxLength: 64, 'x-expected': 'a version such as 1.0.0' }),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    model: Type.String({
      pattern: MODEL_PATTERN,
      'x-expected': '<provider>:<model id> with provider openai, anthropic or openai-compatible',
    }),
    base_url: Type.Optional(
      Type.String({ pattern: '^https?://', maxLength: 2000, 'x-expected': 'an http(s) URL' }),
    ),
    api_key_secret: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
        maxLength: 128,
        'x-expected': 'the name of a secret, e.g. OPENAI_API_KEY',
      }),
    ),
    instructions: Type.Optional(Type.String({ maxLength: 100_000 })),
    tools: Type.Optional(Type.Array(AgentTool, { maxItems: 128 })),
    output_schema: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    max_steps: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2 })),
    max_output_tokens: Type.Optional(Type.Integer({ minimum: 1 })),
    streaming: Type.Optional(Type.Boolean()),
    pricing: Type.Optional(
      Type.Object(
        {
          input_per_million: Type.Number({ minimum: 0 }),
          output_per_million: Type.Number({ minimum: 0 }),
        },
        { additionalProperties: false },
      ),
    ),
    guardrails: Type.Optional(Guardrails),
    backend: Type.Optional(
      Type.String({ pattern: '^[a-z][a-z0-9_-]{0,63}$', 'x-expected': 'ai-sdk or langchain' }),
    ),
  },
  { additionalProperties: false },
);
export type AgentDefinition = Static<typeof AgentDefinition>;

/** An agent definition file. */
export const AgentFile = Type.Object({ agent: AgentDefinition }, { additionalProperties: false });
export type AgentFile = Static<typeof AgentFile>;

/** Default `max_steps`: model turns of one agent step. */
export const DEFAULT_MAX_STEPS = 10;
