import { Type, type Static } from '@weft/core/typebox';
import { AnyValue, TemplateString, Text } from './common.js';

/** Types a workflow input may declare (docs/workflow-language.md#inputs; `array` and `integer` as seen in use). */
export const INPUT_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array'] as const;

/** One of {@link INPUT_TYPES}. */
export type InputType = (typeof INPUT_TYPES)[number];

/** Input spec (docs/workflow-language.md#inputs). */
export const InputSpec = Type.Object(
  {
    type: Type.Optional(
      Type.Union(
        INPUT_TYPES.map((t) => Type.Literal(t)),
        { description: 'Type of the input; CLI strings are coerced to it (default string)' },
      ),
    ),
    description: Type.Optional(Text('What the input is for', 2000)),
    default: Type.Optional(AnyValue('Value used when the input is not given')),
    required: Type.Optional(
      Type.Boolean({ description: 'Whether the input must be given (default false)' }),
    ),
    enum: Type.Optional(
      Type.Array(Type.Unknown(), {
        minItems: 1,
        maxItems: 1000,
        description: 'The values the input may take',
      }),
    ),
    secret: Type.Optional(
      Type.Boolean({
        description:
          'Whether the value is a secret (default false): the execution record, the console and the CLI show it as ***',
      }),
    ),
  },
  { additionalProperties: false, description: 'A workflow input' },
);
export type InputSpec = Static<typeof InputSpec>;

/** Output spec (docs/workflow-language.md#workflow). */
export const OutputSpec = Type.Object(
  {
    value: TemplateString(
      'Template expression giving the output, e.g. "{{ steps.fetch.output.total }}"',
    ),
    description: Type.Optional(Text('What the output is', 2000)),
  },
  { additionalProperties: false, description: 'A workflow output' },
);
export type OutputSpec = Static<typeof OutputSpec>;
