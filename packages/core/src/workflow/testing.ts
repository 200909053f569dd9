import { Type, type Static } from '@weft/core/typebox';
import { Identifier, Text } from './common.js';

/** A recorded failure of one attempt: its error code and message. */
const RecordedError = Type.Object(
  {
    code: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'Error code, e.g. BACKEND_ERROR',
    }),
    message: Type.Optional(Type.String({ maxLength: 4096, description: 'Error message' })),
  },
  { additionalProperties: false, description: 'The attempt failed with this error' },
);

/** What one attempt answered: an output, or an error. */
const AttemptAnswer = Type.Object(
  {
    output: Type.Optional(Type.Unknown({ description: 'What the attempt answered' })),
    error: Type.Optional(RecordedError),
  },
  { additionalProperties: false, description: 'One attempt: `output` or `error`' },
);

/** What one `for_each` item answered: an output or an error, or one answer per attempt. */
const ItemAnswer = Type.Object(
  {
    ...AttemptAnswer.properties,
    attempts: Type.Optional(
      Type.Array(AttemptAnswer, {
        minItems: 1,
        maxItems: 100,
        description: 'One answer per attempt, in order (a retried item)',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'One item: `output`, `error`, or `attempts` (one answer per attempt)',
  },
);

/**
 * The recorded answer of one step in a fixture's `mockData`: the same for every call (`output`,
 * `error`), one per attempt (`attempts`), one per `for_each` item (`items`), or the outputs of a
 * subworkflow step (`outputs`).
 */
export const StepAnswer = Type.Object(
  {
    ...ItemAnswer.properties,
    items: Type.Optional(
      Type.Array(ItemAnswer, {
        maxItems: 100000,
        description: 'One answer per for_each item, in item order',
      }),
    ),
    outputs: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'The outputs of a subworkflow step (it is not run)',
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Recorded answer of a step: output, error, attempts (per attempt), items (per for_each item) or outputs (subworkflow)',
  },
);
export type StepAnswer = Static<typeof StepAnswer>;

/** What a fixture expects of one step. */
export const ExpectedStep = Type.Object(
  {
    status: Type.Optional(
      Type.Union(
        (['success', 'failed', 'skipped', 'canceled'] as const).map((s) => Type.Literal(s)),
        { description: 'Status of the step' },
      ),
    ),
    input: Type.Optional(Type.Unknown({ description: 'The input it was given (secrets as ***)' })),
    output: Type.Optional(Type.Unknown({ description: 'Its output' })),
    outputs: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'A subworkflow step: its outputs',
      }),
    ),
  },
  { additionalProperties: false, description: 'What the step must give' },
);
export type ExpectedStep = Static<typeof ExpectedStep>;

/** One fixture of `testing.fixtures`: inputs, recorded answers and what the run must give. */
export const Fixture = Type.Object(
  {
    name: Text('Fixture name, used with weft workflow test --fixture', 200),
    inputs: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Inputs' })),
    expectedOutputs: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'Outputs the run must give',
      }),
    ),
    secretInputs: Type.Optional(
      Type.Array(Identifier('A secret input, masked as *** in inputs'), {
        maxItems: 1000,
        uniqueItems: true,
        description:
          'Inputs declared secret: true, recorded as ***; a replay reads them from WEFT_FIXTURE_SECRET_<NAME>',
      }),
    ),
    mockData: Type.Optional(
      Type.Record(Type.String({ minLength: 1, maxLength: 200 }), StepAnswer, {
        description:
          'Recorded answers by step name: the action and agent steps (and subworkflow steps) answered without calling anything',
      }),
    ),
    expectedSteps: Type.Optional(
      Type.Record(Type.String({ minLength: 1, maxLength: 200 }), ExpectedStep, {
        description: 'What each step must give, by step name (status, input, output)',
      }),
    ),
  },
  { additionalProperties: false, description: 'A named input set with what the run must give' },
);
export type Fixture = Static<typeof Fixture>;

/** Testing block of a workflow (docs/workflow-language.md#testing). */
export const Testing = Type.Object(
  {
    dryRun: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(
            Type.Boolean({ description: 'Run without calling real connectors' }),
          ),
          mockConnectors: Type.Optional(
            Type.Boolean({ description: 'Answer actions from mockData' }),
          ),
          mockData: Type.Optional(
            Type.Record(Type.String({ minLength: 1 }), Type.Record(Type.String(), Type.Unknown()), {
              description:
                'Mocked outputs: connector reference or plugin slug -> action name -> output',
            }),
          ),
        },
        { additionalProperties: false, description: 'Dry-run settings' },
      ),
    ),
    fixtures: Type.Optional(
      Type.Array(Fixture, {
        maxItems: 1000,
        description: 'Named input sets with their expected outputs',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Testing settings (docs/workflow-language.md#testing)',
  },
);
export type Testing = Static<typeof Testing>;
