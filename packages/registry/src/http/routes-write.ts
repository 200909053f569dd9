import { Type } from '@weft/core/typebox';
import type { FastifyInstance } from 'fastify';
import {
  DeprecateRequest,
  DeprecateResponse,
  PluginDefinition,
  PublishResponse,
  RemoveResponse,
} from '@weft/core';
import { typed } from '@weft/http';
import type { RegistryService } from '../service.js';
import { principalOf, requirePrincipal } from '@weft/identity';
import { dryRunOf, submissionOf } from './content.js';
import { baseUrlOf } from './routes-read.js';
import {
  bearer,
  DryRunQuery,
  errorResponses,
  SlugParams,
  SlugVersionParams,
  UpdateAnswer,
} from './schemas.js';

/** Definitions are checked by the registry (all problems at once), not by Fastify. */
const skipValidation = () => () => true;
/** An agent definition (docs/agents.md#publishing), checked by the agents' own schema. */
const AgentSubmission = Type.Object(
  { agent: Type.Record(Type.String(), Type.Unknown()) },
  {
    description:
      'An agent definition (a top-level agent): published with kind agent as <namespace>-<name>',
  },
);
const Submitted = Type.Union([PluginDefinition, AgentSubmission]);
const definitionBody = {
  content: {
    'application/json': { schema: Submitted },
    'application/yaml': { schema: Submitted },
  },
};

/** Publish, update, deprecate and unpublish. */
export function registerWriteRoutes(app: FastifyInstance, service: RegistryService): void {
  const api = typed(app);
  const auth = requirePrincipal(service.authenticate);
  api.post(
    '/plugins',
    {
      onRequest: auth,
      validatorCompiler: skipValidation,
      schema: {
        summary: 'Publish a new plugin or agent definition',
        tags: ['registry'],
        security: bearer,
        querystring: DryRunQuery,
        body: definitionBody,
        response: {
          200: PublishResponse,
          201: PublishResponse,
          ...errorResponses(400, 401, 409, 413),
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const dryRun = dryRunOf(request);
      const answer = await service.publish(
        principal,
        submissionOf(request),
        dryRun,
        baseUrlOf(service, request),
      );
      return reply.code(dryRun ? 200 : 201).send(answer);
    },
  );

  api.put(
    '/plugins/:slug',
    {
      onRequest: auth,
      validatorCompiler: skipValidation,
      schema: {
        summary: 'Publish a new version of a plugin or agent definition',
        tags: ['registry'],
        security: bearer,
        params: SlugParams,
        querystring: DryRunQuery,
        body: definitionBody,
        response: { 200: UpdateAnswer, ...errorResponses(400, 401, 403, 404, 409, 413) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const dryRun = dryRunOf(request);
      return service.update(
        principal,
        request.params.slug,
        submissionOf(request),
        dryRun,
        baseUrlOf(service, request),
      );
    },
  );

  api.post(
    '/plugins/:slug/:version/deprecate',
    {
      onRequest: auth,
      schema: {
        summary: 'Deprecate a version',
        tags: ['registry'],
        security: bearer,
        params: SlugVersionParams,
        body: DeprecateRequest,
        response: { 200: DeprecateResponse, ...errorResponses(400, 401, 403, 404, 413) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const { slug, version } = request.params;
      return service.deprecate(
        principal,
        slug,
        version,
        request.body.reason,
        request.body.replacement_version ?? null,
      );
    },
  );

  api.delete(
    '/plugins/:slug/:version',
    {
      onRequest: auth,
      schema: {
        summary: 'Unpublish a deprecated version within 72 hours of publication',
        tags: ['registry'],
        security: bearer,
        params: SlugVersionParams,
        response: { 200: RemoveResponse, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      return service.remove(principal, request.params.slug, request.params.version);
    },
  );
}
