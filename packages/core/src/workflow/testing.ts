import { Type, type Static } from '@weft/core/typebox';
import { Text } from './common.js';

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
      Type.Array(
        Type.Object(
          {
            name: Text('Fixture name, used with weft workflow test --fixture', 200),
            inputs: Type.Optional(
              Type.Record(Type.String(), Type.Unknown(), { description: 'Inputs' }),
            ),
            expectedOutputs: Type.Optional(
              Type.Record(Type.String(), Type.Unknown(), {
                description: 'Outputs the run must give',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        { maxItems: 1000, description: 'Named input sets with their expected outputs' },
      ),
    ),
  },
  {
    additionalProperties: false,
    description: 'Testing settings (docs/workflow-language.md#testing)',
  },
);
export type Testing = Static<typeof Testing>;
