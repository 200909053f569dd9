import { Type, type Static, type TSchema } from '@weft/core/typebox';
import { StepAuthorization } from './authorization.js';
import { Identifier, TemplateString, Text } from './common.js';
import { Guardrails } from './guardrails.js';
import { ConnectorRuntime } from './runtime.js';
import { ToolApprovals } from './tool-approval.js';

/** Shape of connector references: `connector:<namespace>/<name>@<version>` (docs/workflow-language.md#steps). */
export const CONNECTOR_REF_PATTERN =
  '^connector:([a-z0-9][a-z0-9_-]*)/([a-z0-9][a-z0-9_.-]*)@(.+)$';
/** Shape of agent references: `agent:<namespace>/<name>@<version>` (docs/workflow-language.md#steps). */
export const AGENT_REF_PATTERN = '^agent:([a-z0-9][a-z0-9_-]*)/([a-z0-9][a-z0-9_.-]*)@(.+)$';
/** Shape of plugin slugs. */
export const SLUG_PATTERN = '^[a-z0-9][a-z0-9_-]{0,63}$';
/** Shape of action names. */
export const ACTION_PATTERN = '^[A-Za-z_][A-Za-z0-9_-]{0,127}$';

/** Step `type` values: the kind is inferred from the other fields when `type` is omitted. */
export const STEP_TYPES = ['action', 'agent', 'workflow', 'parallel', 'transform'] as const;
export type StepType = (typeof STEP_TYPES)[number];

const Retry = Type.Object(
  {
    max_attempts: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100,
        description: 'Attempts in all, the first included',
      }),
    ),
    backoff: Type.Optional(
      Type.Union([Type.Literal('exponential'), Type.Literal('fixed')], {
        description:
          'exponential doubles the delay each attempt; fixed keeps it (default exponential)',
      }),
    ),
    backoff_factor: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 3600,
        description: 'First delay in seconds (default 1)',
      }),
    ),
  },
  { additionalProperties: false, description: 'Retry policy' },
);

const stepProperties = (Self: TSchema) => ({
  name: Type.Optional(Identifier('Unique step identifier within the workflow (also written id)')),
  id: Type.Optional(Identifier('Unique step identifier within the workflow (same as name)')),
  description: Type.Optional(Text('What the step does', 2000)),
  type: Type.Optional(
    Type.Union(
      STEP_TYPES.map((t) => Type.Literal(t)),
      { description: 'Step kind; inferred from the other fields when omitted' },
    ),
  ),
  connector: Type.Optional(
    Type.String({
      pattern: CONNECTOR_REF_PATTERN,
      maxLength: 256,
      description: 'Connector reference connector:<namespace>/<name>@<version>',
      'x-expected': 'a connector reference connector:<namespace>/<name>@<version>',
    }),
  ),
  plugin: Type.Optional(
    Type.String({
      pattern: SLUG_PATTERN,
      description: 'Plugin slug (alternative to connector), used with action',
      'x-expected': 'a plugin slug: lowercase letters, digits, _ and -',
    }),
  ),
  agent: Type.Optional(
    Type.String({
      pattern: AGENT_REF_PATTERN,
      maxLength: 256,
      description: 'Agent reference agent:<namespace>/<name>@<version> (type: agent)',
      'x-expected': 'an agent reference agent:<namespace>/<name>@<version>',
    }),
  ),
  backend: Type.Optional(
    Type.String({
      pattern: '^[a-z][a-z0-9_-]{0,63}$',
      description: "Overrides the agent's backend: ai-sdk or langchain",
      'x-expected': 'a backend name: ai-sdk or langchain',
    }),
  ),
  action: Type.Optional(
    Type.String({
      pattern: ACTION_PATTERN,
      description: 'Action name',
      'x-expected': 'an action name: a letter or _, then letters, digits, _ or -',
    }),
  ),
  workflow: Type.Optional(Text('Name of a workflow to call as a step', 128)),
  version: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 256,
      description: 'Version (or semver range) of the called workflow',
    }),
  ),
  input: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), {
      description: 'Action input; string values may be {{ }} templates',
    }),
  ),
  condition: Type.Optional(
    Type.Union([TemplateString('Template; the step runs only when it is truthy'), Type.Boolean()]),
  ),
  for_each: Type.Optional(
    Type.Union([
      TemplateString('Template giving the array to iterate; item is the element'),
      Type.Array(Type.Unknown(), { maxItems: 10000 }),
    ]),
  ),
  parallel: Type.Optional(
    Type.Union([
      Type.Array(Self, {
        minItems: 1,
        maxItems: 1000,
        description: 'Child steps run concurrently',
      }),
      Type.Boolean({ description: 'With for_each: run iterations concurrently' }),
    ]),
  ),
  retry: Type.Optional(Retry),
  continue_on_error: Type.Optional(
    Type.Boolean({ description: 'A failing step gets status failed and the workflow goes on' }),
  ),
  timeout: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 604_800,
      description: 'Seconds per attempt (at most 600 on an action step)',
    }),
  ),
  execution: Type.Optional(
    Type.Union([Type.Literal('local'), Type.Literal('cloud')], {
      description: 'Where the step runs in hybrid mode',
    }),
  ),
  authorization: Type.Optional(StepAuthorization),
  guardrails: Type.Optional(Guardrails),
  tool_approvals: Type.Optional(ToolApprovals),
  runtime: Type.Optional(ConnectorRuntime),
});

/** A workflow step (docs/workflow-language.md#steps): action, agent, subworkflow, parallel block or transform. */
export const Step = Type.Recursive(
  (Self) =>
    Type.Object(stepProperties(Self), {
      additionalProperties: false,
      description: 'A workflow step',
    }),
  { $id: 'Step' },
);
export type Step = Static<typeof Step>;

export const RetrySpec = Retry;
export type RetrySpec = Static<typeof Retry>;
