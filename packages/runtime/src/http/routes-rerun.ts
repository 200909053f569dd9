import { Type } from '@weft/core/typebox';
import type { FastifyInstance } from 'fastify';
import { restoreWorkflow } from '../executions/definition.js';
import { toExecutionRecord } from '../executions/record.js';
import { typed } from '@weft/http';
import type { Runtime } from '../runtime.js';
import { principalOf, requirePrincipal } from '@weft/identity';
import { ERROR_RESPONSES, ExecutionParams } from './schemas.js';

/**
 * `POST /workflows/executions/{id}/rerun`: a new execution of the same stored workflow revision
 * (its file's other workflows too) with the same inputs and trigger data, started by the caller
 * and checked like any start (authorization, approvals, plugins available). Its callback URL is
 * not reused. 202 with the new record.
 */
export function registerRerunRoute(app: FastifyInstance, runtime: Runtime): void {
  const api = typed(app);
  api.post(
    '/workflows/executions/:id/rerun',
    {
      onRequest: requirePrincipal(runtime.options.authenticate),
      schema: {
        tags: ['executions'],
        security: [{ bearerAuth: [] }],
        summary: 'Start a new execution of the same workflow revision with the same inputs',
        params: ExecutionParams,
        response: { 202: Type.Ref('ExecutionRecord'), ...ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { id } = request.params;
      const original = await runtime.get(id, principal.owner);
      const started = await runtime.startExecution({
        ...restoreWorkflow(original.definition),
        inputs: original.inputs,
        trigger: original.trigger,
        principal,
      });
      const record = toExecutionRecord(started.execution);
      reply.header('location', record.poll_url);
      return reply.code(202).send(record);
    },
  );
}
