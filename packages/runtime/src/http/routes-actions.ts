import type { ServerResponse } from 'node:http';
import { Type } from '@weft/core/typebox';
import type { FastifyInstance } from 'fastify';
import { ExecuteActionRequest, ValidationError } from '@weft/core';
import { runtimeProblems } from '@weft/engine';
import { typed } from '@weft/http';
import type { Runtime } from '../runtime.js';
import { principalOf, requirePrincipal } from '@weft/identity';
import { ERROR_RESPONSES } from './schemas.js';

const ActionResult = Type.Object({
  status: Type.Literal('success'),
  data: Type.Unknown({ description: "The action's output" }),
});

/**
 * `POST /actions/execute {plugin, version?, action, input, runtime?}`: runs one action on the server (the
 * cloud steps of hybrid runs) and answers like a connector (docs/protocol.md#action-calls). A caller that closes
 * its connection before the answer (an interrupted hybrid run) cancels the action.
 */
export function registerActionRoutes(app: FastifyInstance, runtime: Runtime): void {
  const api = typed(app);
  api.post(
    '/actions/execute',
    {
      onRequest: requirePrincipal(runtime.options.authenticate),
      schema: {
        tags: ['actions'],
        security: [{ bearerAuth: [] }],
        summary: 'Run one action on the server (hybrid mode)',
        headers: Type.Object({
          'idempotency-key': Type.Optional(Type.String({ maxLength: 512 })),
        }),
        body: ExecuteActionRequest,
        response: {
          200: ActionResult,
          409: Type.Ref('ErrorObject'),
          502: Type.Ref('ErrorObject'),
          503: Type.Ref('ErrorObject'),
          504: Type.Ref('ErrorObject'),
          ...ERROR_RESPONSES,
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const body = request.body;
      if (body.action.includes('.') && !body.action.startsWith(`${body.plugin}.`)) {
        throw new ValidationError(
          `action "${body.action}" does not belong to plugin "${body.plugin}"`,
          {
            field: 'action',
            constraint: 'plugin',
          },
        );
      }
      const [problem] = body.runtime === undefined ? [] : runtimeProblems(body.runtime);
      if (problem) {
        throw new ValidationError(`${problem.field}: ${problem.message}`, {
          field: problem.field,
          constraint: problem.constraint,
        });
      }
      const action = body.action.startsWith(`${body.plugin}.`)
        ? body.action.slice(body.plugin.length + 1)
        : body.action;
      const key = request.headers['idempotency-key'];
      const data = await runtime.executeAction({
        owner: principal.owner,
        keyId: principal.keyId,
        plugin: body.plugin,
        ...(body.version !== undefined ? { version: body.version } : {}),
        action,
        input: body.input ?? {},
        ...(body.runtime !== undefined ? { runtime: body.runtime } : {}),
        ...(typeof key === 'string' ? { idempotencyKey: key } : {}),
        signal: callerGone(reply.raw),
      });
      return { status: 'success' as const, data };
    },
  );
}

/** A signal that fires when the response's connection closes before the answer was written. */
function callerGone(response: ServerResponse): AbortSignal {
  const controller = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) controller.abort();
  });
  return controller.signal;
}
