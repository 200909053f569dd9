import { Type, type Static } from '@weft/core/typebox';

/** How a step changes between two revisions (docs/workflow-language.md#upgrading-safely). */
export const STEP_CHANGES = ['removed', 'renamed', 'moved', 'added'] as const;

/** One step changed between the deployed revision and the new one. */
export const StepChangeBody = Type.Object({
  change: Type.Union(
    STEP_CHANGES.map((c) => Type.Literal(c)),
    {
      description:
        'removed; renamed (same type, target and position, another name); moved (its order among the steps of both revisions changed); added',
    },
  ),
  step: Type.String({ description: 'The step (its name in the deployed revision; added: new)' }),
  to: Type.Optional(Type.String({ description: 'renamed: its new name' })),
});
export type StepChangeBody = Static<typeof StepChangeBody>;

/** One change of a schema, as the registry's breaking-change rules list it. */
export const SchemaChangeBody = Type.Object({
  action: Type.String({ description: 'The action (for workflow inputs: `inputs`)' }),
  path: Type.String({ description: 'Where: `input.properties.id`, `output`, `action`…' }),
  change: Type.String({ description: 'What changed: `made required (was optional)`…' }),
});
export type SchemaChangeBody = Static<typeof SchemaChangeBody>;

/** A workflow input whose schema changed. */
export const InputChangeBody = Type.Object({
  input: Type.String(),
  change: Type.String({ description: '`made required (was optional)`, `type narrowed: …`…' }),
  breaking: Type.Boolean({ description: 'Whether an input the old revision took may be refused' }),
});
export type InputChangeBody = Static<typeof InputChangeBody>;

/** What a change does to one execution in progress. */
export const EXECUTION_CHANGES = [
  'step_removed',
  'step_renamed',
  'step_moved_before',
  'input_narrowed',
  'plugin_breaking',
] as const;

/** One change of an execution's remaining steps. */
export const ExecutionChangeBody = Type.Object({
  change: Type.Union(EXECUTION_CHANGES.map((c) => Type.Literal(c))),
  step: Type.Optional(Type.String({ description: 'The step it concerns, as the run knows it' })),
  input: Type.Optional(Type.String({ description: 'input_narrowed: the input' })),
  detail: Type.String({ description: 'One readable line' }),
  introduced: Type.Boolean({
    description:
      'Whether this deploy brings it: false when the deployed revision already has it (an earlier deploy was forced over it), which refuses nothing',
  }),
});
export type ExecutionChangeBody = Static<typeof ExecutionChangeBody>;

/** An execution in progress whose remaining steps the new revision changes. */
export const AffectedExecutionBody = Type.Object({
  execution_id: Type.String(),
  status: Type.String({ description: 'pending, running or waiting' }),
  waiting_for: Type.Union([Type.String(), Type.Null()], {
    description: 'What a waiting execution waits for (`approval`); null otherwise',
  }),
  workflow_version: Type.String({ description: 'The version it started on (and keeps)' }),
  next_step: Type.Union([Type.String(), Type.Null()], {
    description: 'The first step it has not finished; null when none is left',
  }),
  changes: Type.Array(ExecutionChangeBody),
});
export type AffectedExecutionBody = Static<typeof AffectedExecutionBody>;

/** A plugin or agent whose version changes between the revisions. */
export const UpgradeBody = Type.Object({
  kind: Type.Union([Type.Literal('plugin'), Type.Literal('agent')]),
  slug: Type.String(),
  from: Type.Union([Type.String(), Type.Null()], {
    description: 'Version the deployed revision uses (null: unknown to the registry)',
  }),
  to: Type.Union([Type.String(), Type.Null()], { description: 'Version the new one uses' }),
  breaking: Type.Boolean({
    description: 'Whether a change the workflow uses breaks (the registry’s rules)',
  }),
  breaks: Type.Array(SchemaChangeBody, {
    description: 'Breaking changes of the actions (agents: the output) the workflow uses',
  }),
  compatible: Type.Integer({ description: 'How many compatible changes' }),
  compared: Type.Boolean({
    description: 'false when a definition could not be read from the registry (not compared)',
  }),
});
export type UpgradeBody = Static<typeof UpgradeBody>;

const Fires = Type.Array(
  Type.Object({
    trigger: Type.Integer({ description: 'Index of the schedule trigger in `triggers`' }),
    cron: Type.String(),
    timezone: Type.String(),
    at: Type.Array(Type.String({ format: 'date-time' })),
  }),
);

/**
 * What deploying a revision would do to the work in progress (`PUT /workflows/{name}` with
 * `?dry_run=true`, and the details of a deploy refused for it): read only, nothing written.
 */
export const DeployImpact = Type.Object(
  {
    first_deploy: Type.Boolean({
      description: 'No revision of this name is deployed: no work in progress to change',
    }),
    previous_revision: Type.Union([Type.Integer(), Type.Null()]),
    previous_version: Type.Union([Type.String(), Type.Null()]),
    pinned: Type.Literal(true, {
      description:
        'Work in progress keeps the revision it started on (its definition is stored with it); the changes below are what it would meet on the new one',
    }),
    breaking: Type.Boolean({
      description:
        'Whether an execution waiting (for approval) meets a change this deploy brings (`introduced`): a real deploy is then refused with 409 unless `force=true`',
    }),
    summary: Type.String({ description: 'One readable line' }),
    steps: Type.Array(StepChangeBody, { description: 'Deployed revision → new one' }),
    inputs: Type.Array(InputChangeBody, { description: 'Workflow inputs whose schema changed' }),
    executions: Type.Object({
      pending: Type.Integer(),
      running: Type.Integer(),
      waiting: Type.Integer(),
      limit: Type.Integer({ description: 'At most this many of each status are read' }),
      capped: Type.Boolean({
        description: 'More than `limit` of a status are in progress: the counts are at least',
      }),
      affected: Type.Array(AffectedExecutionBody),
    }),
    upgrades: Type.Array(UpgradeBody, { description: 'Plugins and agents whose version changes' }),
    triggers: Type.Object({
      added: Type.Array(Type.String(), { description: '`schedule 0 9 * * *`, `webhook POST /x`…' }),
      removed: Type.Array(Type.String()),
    }),
    next_fires: Type.Object({
      before: Fires,
      after: Fires,
    }),
  },
  { $id: 'DeployImpact' },
);
export type DeployImpact = Static<typeof DeployImpact>;
