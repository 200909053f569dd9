import { Type, type Static } from '@weft/core/typebox';
import { Authorization } from './authorization.js';
import { WorkflowGuardrails } from './guardrails.js';
import { WorkflowBudgets } from './budgets.js';
import { IDENTIFIER_PATTERN, SemverString, Text } from './common.js';
import { InputSpec, OutputSpec } from './inputs.js';
import { ExecutionSettings } from './runtime.js';
import { Step } from './steps.js';
import { Testing } from './testing.js';
import { Trigger } from './triggers.js';

/** Pattern of workflow names: printable, no `/`, no leading or trailing space. */
export const WORKFLOW_NAME_PATTERN =
  '^[^\\s/\\u0000-\\u001f](?:[^/\\u0000-\\u001f]*[^\\s/\\u0000-\\u001f])?$';

/** A workflow definition (docs/workflow-language.md#workflow). */
export const Workflow = Type.Object(
  {
    name: Type.String({
      pattern: WORKFLOW_NAME_PATTERN,
      maxLength: 128,
      description: 'Human-readable name; selects the workflow within a file',
      'x-expected': 'a name of 1–128 printable characters without /',
    }),
    version: Type.Optional(SemverString('Semantic version of the workflow (default 1.0.0)')),
    description: Type.Optional(Text('What the workflow does', 4000)),
    inputs: Type.Optional(
      Type.Record(Type.String({ pattern: IDENTIFIER_PATTERN }), InputSpec, {
        description: 'Inputs by name',
        'x-expected-key': 'an input name: a letter or _, then letters, digits, _ or -',
      }),
    ),
    triggers: Type.Optional(Type.Array(Trigger, { maxItems: 100, description: 'What starts it' })),
    steps: Type.Array(Step, { minItems: 1, maxItems: 1000, description: 'Steps, run in order' }),
    outputs: Type.Optional(
      Type.Record(Type.String({ pattern: IDENTIFIER_PATTERN }), OutputSpec, {
        description: 'Outputs by name',
        'x-expected-key': 'an output name: a letter or _, then letters, digits, _ or -',
      }),
    ),
    authorization: Type.Optional(Authorization),
    guardrails: Type.Optional(WorkflowGuardrails),
    budgets: Type.Optional(WorkflowBudgets),
    testing: Type.Optional(Testing),
    execution: Type.Optional(ExecutionSettings),
  },
  { additionalProperties: false, description: 'A workflow definition' },
);
export type Workflow = Static<typeof Workflow>;

/** A workflow file: the top-level key `workflows` holds one or more definitions (docs/workflow-language.md#workflow). */
export const WorkflowFile = Type.Object(
  {
    $schema: Type.Optional(Type.String({ description: 'JSON Schema of this file, for editors' })),
    workflows: Type.Array(Workflow, {
      minItems: 1,
      maxItems: 1000,
      description: 'The workflow definitions of this file',
    }),
  },
  { additionalProperties: false, description: 'A weft workflow file' },
);
export type WorkflowFile = Static<typeof WorkflowFile>;
