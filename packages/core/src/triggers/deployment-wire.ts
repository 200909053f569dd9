import { Type, type Static } from '@weft/core/typebox';

/** A plugin version a deployed workflow references, on the wire. */
export const PluginReferenceBody = Type.Object({
  slug: Type.String(),
  version: Type.Union([Type.String(), Type.Null()], {
    description:
      'Pinned version; null for a bare plugin reference (the registry latest at run time)',
  }),
});

/** Who deployed a workflow, on the wire (a `DeployerSnapshot`). */
export const DeployerBody = Type.Object({
  kind: Type.String({ description: 'api_key, oidc or local (the workflows directory)' }),
  subject: Type.String(),
  owner: Type.String(),
  key_id: Type.String(),
  name: Type.String(),
  roles: Type.Array(Type.String()),
  permissions: Type.Array(Type.String(), {
    description: 'In force at deployment, after the access file',
  }),
});

/** A deployed workflow, as `GET /workflows` lists it. */
export const DeployedWorkflowSummary = Type.Object(
  {
    owner: Type.String({
      description:
        'The workspace it belongs to: names are per owner, so two owners may each deploy a workflow of one name',
    }),
    name: Type.String(),
    version: Type.String({ description: 'The workflow’s own version' }),
    revision: Type.Integer({
      description: '1 for the first deployment of the name by its owner, +1 on each redeployment',
    }),
    triggers: Type.Array(Type.String(), {
      description: 'Trigger types, e.g. ["webhook", "schedule"]',
    }),
    webhooks: Type.Array(Type.String(), { description: 'Served webhooks as "METHOD /hooks/path"' }),
    next_fires: Type.Array(
      Type.Object({
        trigger: Type.Integer({ description: 'Index of the schedule trigger in `triggers`' }),
        cron: Type.String(),
        timezone: Type.String({ description: 'IANA time zone the cron expression is read in' }),
        at: Type.Array(Type.String({ format: 'date-time' }), {
          description:
            'The next 3 fires after now (UTC, soonest first), as the scheduler computes them; fewer when the schedule ends',
        }),
      }),
      { description: 'One entry per schedule trigger; empty without one' },
    ),
    plugins: Type.Array(PluginReferenceBody),
    source: Type.String({ description: '"api" or "file:<path>"' }),
    deployed_by: Type.Union([Type.String(), Type.Null()]),
    deployer: Type.Union([DeployerBody, Type.Null()], {
      description:
        'Who deployed it, with the roles and permissions checked then: what runs of its triggers act as. Null: none recorded (they act with no grants)',
    }),
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
      source_text: Type.Union([Type.String(), Type.Null()], {
        description:
          'The text the active revision was deployed from (YAML or JSON as sent; a workflows-directory file: its whole text); null when not kept (revisions deployed before it was)',
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

/** Query of `PUT /workflows/{name}`. */
export const DeployQuery = Type.Object(
  {
    strict: Type.Optional(
      Type.Boolean({
        description: 'Refuse (400, nothing deployed) when the deployment has warnings',
      }),
    ),
    dry_run: Type.Optional(
      Type.Boolean({
        description:
          'Check everything a deployment checks and answer status "checked" with `impact`: what the new revision would do to the work in progress; nothing is deployed',
      }),
    ),
    force: Type.Optional(
      Type.Boolean({
        description:
          'Deploy even when the impact check finds breaking changes for executions waiting for approval (otherwise 409); audited',
      }),
    ),
    owner: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 300,
        description:
          'Admin keys: the owner (workspace) to deploy into (default: the key’s own owner). Other keys may name only their own',
      }),
    ),
  },
  { additionalProperties: false },
);
export type DeployQuery = Static<typeof DeployQuery>;

/** Answer of `PUT /workflows/{name}`. */
export const DeployResponse = Type.Object({
  status: Type.Union([Type.Literal('deployed'), Type.Literal('checked')], {
    description: 'deployed, or checked for a dry run (nothing changed)',
  }),
  name: Type.String(),
  version: Type.String(),
  revision: Type.Integer(),
  previous_version: Type.Union([Type.String(), Type.Null()], {
    description: 'Version of the revision it replaced; null on a first deployment',
  }),
  webhooks: Type.Array(Type.String(), { description: 'Served webhooks as "METHOD /hooks/path"' }),
  warnings: Type.Array(Type.String(), {
    description:
      'One line each: validator warnings, each plugin this server cannot run, and each agent step whose agent it cannot run (with ?strict=true these refuse the deployment)',
  }),
  impact: Type.Optional(
    Type.Ref('DeployImpact', {
      description:
        'With dry_run=true: what the new revision would do to the work in progress. On a deploy forced over breaking changes: what it overrode',
    }),
  ),
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

/**
 * Query of `GET /workflows`, `GET /workflows/{name}` and `DELETE /workflows/{name}`: an admin key
 * may name another owner (workspace) than its own; other keys act in their own owner only (naming
 * another finds nothing).
 */
export const DeploymentOwnerQuery = Type.Object({
  owner: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 300,
      description:
        'Admin keys: the owner whose deployments to act on (default: the key’s own owner). Other keys: only their own owner is found',
    }),
  ),
});
export type DeploymentOwnerQuery = Static<typeof DeploymentOwnerQuery>;
