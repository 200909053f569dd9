import { Type } from '@weft/core/typebox';
import type { FastifyInstance } from 'fastify';
import { RerunExecutionRequest } from '@weft/core';
import { restoreWorkflow } from '../executions/definition.js';
import { toExecutionRecord } from '../executions/record.js';
import { planResume } from '../executions/resume-from.js';
import { typed } from '@weft/http';
import type { Runtime } from '../runtime.js';
import { principalOf, requirePrincipal } from '@weft/identity';
import { ERROR_RESPONSES, ExecutionParams } from './schemas.js';

/**
 * `POST /workflows/executions/{id}/rerun`: a new execution of the same stored workflow revision
 * (its file's other workflows too) with the same inputs and trigger data, started by the caller
 * and checked like any start (authorization, approvals, plugins available). Its callback URL is
 * not reused. With `from` (a top-level step, or `failed`), it resumes the original: the steps
 * before that one are taken from the original's journal, not run again, and the new record
 * carries `resumed_from`. 202 with the new record.
 */
export function registerRerunRoute(app: FastifyInstance, runtime: Runtime): void {
  const api = typed(app);
  api.post(
    '/workflows/executions/:id/rerun',
    {
      onRequest: requirePrincipal(runtime.options.authenticate),
      // The body is optional: a rerun without one (as before `from`) checks as `{}`.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        tags: ['executions'],
        security: [{ bearerAuth: [] }],
        summary: 'Start a new execution of the same workflow revision with the same inputs',
        description:
          'The body may be left out (or `{}`): the whole workflow runs again. With `from`, resume the original from that step (or `failed`: the step it failed at): the steps before it are taken from its journal. 400 VALIDATION (`details.field: "from"`) when that step is unknown, inside a parallel block, or when a step before it did not finish.',
        params: ExecutionParams,
        body: RerunExecutionRequest,
        response: { 202: Type.Ref('ExecutionRecord'), ...ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { id } = request.params;
      const { from } = request.body;
      const original = await runtime.get(id, principal.owner);
      const executable = restoreWorkflow(original.definition);
      const resume =
        from === undefined
          ? undefined
          : planResume(
              original,
              executable.workflow,
              await runtime.options.store.steps(original.id),
              from,
            );
      const started = await runtime.startExecution({
        ...executable,
        inputs: original.inputs,
        trigger: original.trigger,
        principal,
        ...(resume ? { resume } : {}),
      });
      const record = toExecutionRecord(started.execution);
      reply.header('location', record.poll_url);
      return reply.code(202).send(record);
    },
  );
}
