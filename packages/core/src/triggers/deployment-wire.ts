import { Type, type Static } from '@sinclair/typebox';

/** A plugin version a deployed workflow references, on the wire. */
export const PluginReferenceBody = Type.Object({
  slug: Type.String(),
  version: Type.Union([Type.String(), Type.Null()], {
    description:
      'Pinned version; null for a bare plugin reference (the registry latest at run time)',
  }),
});

/** A deployed workflow, as `GET /workflows` lists it. */
export const DeployedWorkflowSummary = Type.Object(
  {
    name: Type.String(),
    version: Type.String({ description: 'The workflow’s own version' }),
    revision: Type.Integer({ description: '1 for the first deployment, +1 on each redeployment' }),
    triggers: Type.Array(Type.String(), {
      description: 'Trigger types, e.g. ["webhook", "schedule"]',
    }),
    webhooks: Type.Array(Type.String(), { description: 'Served webhooks as "METHOD /hooks/path"' }),
    plugins: Type.Array(PluginReferenceBody),
    source: Type.String({ description: '"api" or "file:<path>"' }),
    deployed_by: Type.Union([Type.String(), Type.Null()]),
    deployed_at: Type.String({ format: 'date-time' }),
    created_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'DeployedWorkflowSummary' },
);
export type DeployedWorkflowSummary = Static<typeof DeployedWorkflowSummary>;

/** `GET /workflows/{name}`: the summary plus the definition and the revisions. */
export const DeployedWorkflowDetail = Type.Intersect(
  [
    Type.Omit(DeployedWorkflowSummary, []),
    Type.Object({
      definition: Type.Record(Type.String(), Type.Unknown(), {
        description: 'The deployed definition (the object inside `workflows`)',
      }),
      revisions: Type.Array(
        Type.Object({
          revision: Type.Integer(),
          version: Type.String(),
          deployed_at: Type.String({ format: 'date-time' }),
          source: Type.String(),
        }),
        { description: 'Every revision, newest first' },
      ),
    }),
  ],
  { $id: 'DeployedWorkflowDetail' },
);
export type DeployedWorkflowDetail = Static<typeof DeployedWorkflowDetail>;

/** `GET /workflows`. */
export const DeployedWorkflowList = Type.Object({
  total: Type.Integer(),
  workflows: Type.Array(Type.Ref('DeployedWorkflowSummary')),
});
export type DeployedWorkflowList = Static<typeof DeployedWorkflowList>;

/** Answer of `PUT /workflows/{name}`. */
export const DeployResponse = Type.Object({
  status: Type.Literal('deployed'),
  name: Type.String(),
  version: Type.String(),
  revision: Type.Integer(),
  previous_version: Type.Union([Type.String(), Type.Null()], {
    description: 'Version of the revision it replaced; null on a first deployment',
  }),
  webhooks: Type.Array(Type.String(), { description: 'Served webhooks as "METHOD /hooks/path"' }),
  warnings: Type.Array(Type.String(), { description: 'Validator warnings, one line each' }),
});
export type DeployResponse = Static<typeof DeployResponse>;

/** Answer of `DELETE /workflows/{name}`. */
export const UndeployResponse = Type.Object({
  status: Type.Literal('undeployed'),
  name: Type.String(),
});
export type UndeployResponse = Static<typeof UndeployResponse>;

/** Body of `POST /workflows/{name}/executions` (manual trigger). */
export const ManualRunRequest = Type.Object(
  {
    inputs: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: 'Workflow inputs by name' }),
    ),
  },
  { additionalProperties: false },
);
export type ManualRunRequest = Static<typeof ManualRunRequest>;

/** Answer of `POST /events/{topic}`: the executions the event started. */
export const EventAccepted = Type.Object({
  status: Type.Literal('accepted'),
  topic: Type.String(),
  started: Type.Array(
    Type.Object({
      workflow: Type.String(),
      execution_id: Type.String(),
      poll_url: Type.String(),
    }),
  ),
});
export type EventAccepted = Static<typeof EventAccepted>;
