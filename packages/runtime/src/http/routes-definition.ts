import { Type } from '@weft/core/typebox';
import type { FastifyInstance } from 'fastify';
import type { Principal } from '@weft/core';
import { typed } from '@weft/http';
import type { Runtime } from '../runtime.js';
import { principalOf, requirePrincipal } from '@weft/identity';
import { ERROR_RESPONSES, ExecutionParams } from './schemas.js';

/** The answer of `GET /workflows/executions/{id}/definition`. */
const ExecutionDefinition = Type.Object({
  workflow: Type.Record(Type.String(), Type.Unknown(), {
    description:
      'The workflow the execution runs, as the server loaded it (step `id` folded into `name`, defaults applied)',
  }),
});

/**
 * `GET /workflows/executions/{id}/definition`: the workflow an execution runs, as stored with it
 * (a run of a workflow sent inline has no deployment to read it from). The console draws its
 * graph from it. Readable by whoever may read the execution.
 */
export function registerDefinitionRoute(app: FastifyInstance, runtime: Runtime): void {
  typed(app).get(
    '/workflows/executions/:id/definition',
    {
      onRequest: requirePrincipal(runtime.options.authenticate),
      schema: {
        tags: ['executions'],
        security: [{ bearerAuth: [] }],
        summary: 'The workflow definition an execution runs (its steps, for a graph)',
        params: ExecutionParams,
        response: { 200: ExecutionDefinition, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const principal: Principal = principalOf(request);
      const execution = await runtime.get(
        request.params.id,
        principal.admin ? undefined : principal.owner,
      );
      return { workflow: execution.definition.workflow as Record<string, unknown> };
    },
  );
}
