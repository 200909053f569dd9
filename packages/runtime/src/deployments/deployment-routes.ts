import { Type } from '@weft/core/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { principalOf, requirePrincipal } from '@weft/identity';
import { isPlainObject } from '@weft/engine';
import {
  DeployedWorkflowDetail,
  DeployedWorkflowList,
  DeployedWorkflowSummary,
  DeployImpact,
  DeploymentOwnerQuery,
  DeployQuery,
  DeployResponse,
  ExecutionRecord,
  ForbiddenError,
  ManualRunRequest,
  errorResponses,
  NotFoundError,
  UndeployResponse,
  ValidationError,
  type DeploymentRecord,
  type StoredExecution,
} from '@weft/core';
import { ensureErrorSchema, errorHandler } from '@weft/http';
import type { Authenticate } from '../triggers/start-execution.js';
import type { Deployer } from './deploy-plan.js';
import type { DeploymentService } from './deployment-service.js';
import { parseDefinitionBody } from './parse-definition.js';
import { upcomingFires } from '../triggers/schedule/schedule.js';
import { isFinished } from '../executions/queries.js';
import { toExecutionRecord } from '../executions/record.js';
import { PreferHeader, preferredWait } from '../http/schemas.js';

/** Options of {@link deploymentRoutes}. */
export interface DeploymentRoutesOptions {
  service: DeploymentService;
  /** Checks the bearer key of every route. */
  authenticate: Authenticate;
  /** Largest definition body, bytes. Default 1 MiB. */
  bodyLimit?: number;
  /**
   * Waits for an execution to end, for a manual run sent with `Prefer: wait=N` (N capped at
   * `maxSeconds`); without it the header is not honoured (202 at once).
   */
  waitFor?: ManualRunWait;
}

/** How a manual run waits for its end (the server: `Runtime.waitFor`). */
export interface ManualRunWait {
  maxSeconds: number;
  until: (id: string, owner: string, ms: number) => Promise<StoredExecution>;
}

const NameParams = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 128, description: 'Workflow name' }),
});
const bearer = [{ bearerAuth: [] }];
const JSON_TYPES = ['application/json'];
const YAML_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml'];

/**
 * Deployed workflows over HTTP (bearer key on every route): `PUT /workflows/{name}` deploys a
 * definition sent as JSON or YAML, `GET /workflows` and `GET /workflows/{name}` read them,
 * `DELETE /workflows/{name}` undeploys, and `POST /workflows/{name}/executions` starts one by
 * hand, answering 202 with the pending record. Names are per owner: `{name}` is always resolved
 * within the caller's owner, so a key sees, deploys, starts and undeploys only its owner's
 * deployments, and a PUT of a name another owner uses creates the caller's own. An admin key
 * acts in its own owner too, and may name another with `?owner=` on the reads, the deploy and the
 * undeploy (a manual run is always in the caller's own owner).
 * A guarded current revision guards its own redeploy and undeploy
 * (docs/authorization.md#guarded-deployments).
 */
export function deploymentRoutes(options: DeploymentRoutesOptions) {
  const { service } = options;
  const bodyLimit = options.bodyLimit ?? 1024 * 1024;
  const auth = requirePrincipal(options.authenticate);

  return async function deployments(app: FastifyInstance): Promise<void> {
    ensureErrorSchema(app);
    if (!app.getSchema('DeployedWorkflowSummary')) app.addSchema(DeployedWorkflowSummary);
    if (!app.getSchema('ExecutionRecord')) app.addSchema(ExecutionRecord);
    if (!app.getSchema('DeployImpact')) app.addSchema(DeployImpact);
    // A 413 names the limit of the parser here, which is not the route's.
    app.setErrorHandler(errorHandler({ bodyLimit }));
    app.removeAllContentTypeParsers();
    app.addContentTypeParser(
      [...JSON_TYPES, ...YAML_TYPES],
      { parseAs: 'buffer', bodyLimit },
      (request, body, done) => {
        try {
          const value = parseDefinitionBody(body as Buffer, bodyLimit);
          done(
            null,
            request.routeOptions.url === '/workflows/:name'
              ? { definition: value, text: (body as Buffer).toString('utf8') }
              : value,
          );
        } catch (error) {
          done(error as Error, undefined);
        }
      },
    );

    app.put<{
      Params: { name: string };
      Querystring: DeployQuery;
      Body: { definition: unknown; text?: string };
    }>(
      '/workflows/:name',
      {
        onRequest: auth,
        schema: {
          summary:
            "Deploy a workflow definition (JSON or YAML: the object inside `workflows`); the deployer must pass its authorization (and that of the current revision, when guarded), and the runs of its triggers act as the deployer. The answer's `impact` says what the new revision does (with `dry_run=true`: would do) to the executions in progress, which keep the revision they started on; a deploy whose impact breaks an execution waiting for approval is refused with 409 unless `force=true` (audited)",
          tags: ['workflows'],
          security: bearer,
          params: NameParams,
          querystring: DeployQuery,
          response: {
            200: DeployResponse,
            201: DeployResponse,
            ...errorResponses(400, 401, 403, 409, 413),
          },
        },
      },
      async (request, reply) => {
        if (request.body === undefined || request.body === null) {
          throw new ValidationError(
            'send the workflow definition as application/json or application/yaml',
            { field: 'body', constraint: 'required' },
          );
        }
        const deployer = scopedDeployerOf(request, request.query.owner);
        if (!deployer) {
          throw new ForbiddenError(
            'only an admin key may deploy into another owner than its own: leave out ?owner=',
            { reason: 'owner_not_yours', field: 'owner' },
          );
        }
        const deployed = await service.deploy(
          request.body.definition,
          'api',
          deployer,
          request.params.name,
          {
            strict: request.query.strict === true,
            dryRun: request.query.dry_run === true,
            force: request.query.force === true,
            ...(request.body.text !== undefined ? { text: request.body.text } : {}),
          },
        );
        const created = deployed.record.revision === 1 && !deployed.dryRun;
        return reply.code(created ? 201 : 200).send({
          status: deployed.dryRun ? 'checked' : 'deployed',
          name: deployed.record.name,
          version: deployed.record.version,
          revision: deployed.record.revision,
          previous_version: deployed.previousVersion,
          webhooks: deployed.webhooks,
          warnings: deployed.warnings,
          ...(deployed.impact ? { impact: deployed.impact } : {}),
        });
      },
    );

    app.get<{ Querystring: DeploymentOwnerQuery }>(
      '/workflows',
      {
        onRequest: auth,
        schema: {
          summary:
            'List the deployed workflows of the caller’s owner (an admin key: of `?owner=`, default its own)',
          tags: ['workflows'],
          security: bearer,
          querystring: DeploymentOwnerQuery,
          response: { 200: DeployedWorkflowList, ...errorResponses(401) },
        },
      },
      async (request) => {
        const by = scopedDeployerOf(request, request.query.owner);
        const records = by ? await service.list(by.owner) : [];
        return {
          total: records.length,
          workflows: records.map((r) =>
            summary(r, service.webhooksOf(r.owner, r.name), service.now()),
          ),
        };
      },
    );

    app.get<{ Params: { name: string }; Querystring: DeploymentOwnerQuery }>(
      '/workflows/:name',
      {
        onRequest: auth,
        schema: {
          summary:
            'A deployed workflow of the caller’s owner (an admin key: of `?owner=`) with its definition and revisions',
          tags: ['workflows'],
          security: bearer,
          params: NameParams,
          querystring: DeploymentOwnerQuery,
          response: { 200: DeployedWorkflowDetail, ...errorResponses(401, 404) },
        },
      },
      async (request) => {
        const by = scopedDeployerOf(request, request.query.owner);
        const record = by && (await service.get(by.owner, request.params.name));
        if (!record)
          throw new NotFoundError(`no deployed workflow is named "${request.params.name}"`, {
            name: request.params.name,
          });
        const history = await service.history(record.owner, record.name);
        return {
          ...summary(record, service.webhooksOf(record.owner, record.name), service.now()),
          definition: record.definition,
          source_text: record.source_text ?? null,
          revisions: history.map((h) => ({
            revision: h.revision,
            version: h.version,
            deployed_at: h.deployed_at,
            source: h.source,
          })),
        };
      },
    );

    app.delete<{ Params: { name: string }; Querystring: DeploymentOwnerQuery }>(
      '/workflows/:name',
      {
        onRequest: auth,
        schema: {
          summary:
            'Undeploy a workflow of the caller’s owner (an admin key: of `?owner=`; its execution history is kept); a guarded current revision needs its authorization',
          tags: ['workflows'],
          security: bearer,
          params: NameParams,
          querystring: DeploymentOwnerQuery,
          response: { 200: UndeployResponse, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => {
        const by = scopedDeployerOf(request, request.query.owner);
        if (!by)
          throw new NotFoundError(`no deployed workflow is named "${request.params.name}"`, {
            name: request.params.name,
          });
        await service.undeploy(request.params.name, by);
        return { status: 'undeployed', name: request.params.name };
      },
    );

    app.post<{
      Params: { name: string };
      Body: ManualRunRequest | undefined;
      Headers: { prefer?: string };
    }>(
      '/workflows/:name/executions',
      {
        onRequest: auth,
        schema: {
          summary:
            'Start a deployed workflow by hand (manual trigger); body {inputs}. 202 pending; 200 with Prefer: wait=N when it ends in time',
          tags: ['workflows'],
          security: bearer,
          params: NameParams,
          headers: PreferHeader,
          response: {
            200: Type.Ref('ExecutionRecord'),
            202: Type.Ref('ExecutionRecord'),
            ...errorResponses(400, 401, 404),
          },
        },
      },
      async (request, reply) => {
        const principal = principalOf(request);
        const record = await service.runManually(
          request.params.name,
          manualInputs(request.body),
          principal,
        );
        const { waitFor } = options;
        const wait = waitFor ? preferredWait(request.headers.prefer, waitFor.maxSeconds) : 0;
        if (!waitFor || wait === 0)
          return reply.code(202).header('location', record.poll_url).send(record);
        reply.header('preference-applied', `wait=${wait}`);
        const now = await waitFor.until(record.execution_id, principal.owner, wait * 1000);
        return reply
          .code(isFinished(now) ? 200 : 202)
          .header('location', record.poll_url)
          .send(toExecutionRecord(now));
      },
    );
  };
}

/** The caller of a request authenticated by the routes' `onRequest` hook, as a deployer. */
function deployerOf(request: FastifyRequest): Deployer {
  const principal = principalOf(request);
  return { owner: principal.owner, admin: principal.admin, principal };
}

/**
 * The caller acting in the owner `?owner=` names: an admin key may name any; another key only
 * its own, and naming another finds nothing (undefined: answered like an unknown name, no hint).
 */
function scopedDeployerOf(
  request: FastifyRequest,
  owner: string | undefined,
): Deployer | undefined {
  const by = deployerOf(request);
  if (owner === undefined || owner === by.owner) return by;
  return by.admin === true ? { ...by, owner } : undefined;
}

/** The `inputs` of a manual-run body ({@link ManualRunRequest}); an absent body means none. */
function manualInputs(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (!isPlainObject(body)) {
    throw new ValidationError('the body must be an object {inputs}', {
      field: 'body',
      constraint: 'type',
    });
  }
  const extra = Object.keys(body).find((k) => k !== 'inputs');
  if (extra !== undefined) {
    throw new ValidationError(`unknown field "${extra}": the body is {inputs}`, {
      field: extra,
      constraint: 'additionalProperties',
    });
  }
  if (body['inputs'] === undefined) return {};
  if (!isPlainObject(body['inputs'])) {
    throw new ValidationError('inputs must be an object of input values by name', {
      field: 'inputs',
      constraint: 'type',
    });
  }
  return body['inputs'];
}

function summary(record: DeploymentRecord, webhooks: string[], nowMs: number) {
  const triggers = (record.definition['triggers'] as { type: string }[] | undefined) ?? [];
  return {
    owner: record.owner,
    name: record.name,
    version: record.version,
    revision: record.revision,
    triggers: triggers.map((t) => t.type),
    webhooks,
    next_fires: upcomingFires(record.definition, nowMs),
    plugins: record.plugins,
    source: record.source,
    deployed_by: record.deployed_by,
    deployer: record.deployer ?? null,
    deployed_at: record.deployed_at,
    created_at: record.created_at,
  };
}
