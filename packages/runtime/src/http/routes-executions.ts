import { Type } from '@weft/core/typebox';
import type { FastifyInstance } from 'fastify';
import {
  ConflictError,
  ValidationError,
  ExecutionListQuery,
  StartExecutionRequest,
  type ExecutionRecord,
  type StoredExecution,
} from '@weft/core';
import { decodeCursor, encodeCursor } from '../executions/cursor.js';
import { loadRequestedWorkflow } from '../executions/definition.js';
import { toExecutionRecord } from '../executions/record.js';
import { fingerprintOf } from '../executions/new-start.js';
import { isFinished } from '../executions/queries.js';
import { typed } from '@weft/http';
import type { Runtime } from '../runtime.js';
import { principalOf, requirePrincipal } from '@weft/identity';
import { traceCarrierOf } from '@weft/telemetry';
import { readableOwner } from './owners.js';
import { ERROR_RESPONSES, ExecutionParams, PreferHeader, preferredWait } from './schemas.js';

const TAGS = ['executions'];
const SECURITY = [{ bearerAuth: [] }];

/** `POST/GET /workflows/executions`, `GET .../{id}`, `POST .../{id}/cancel`. */
export function registerExecutionRoutes(app: FastifyInstance, runtime: Runtime): void {
  const api = typed(app);
  const onRequest = requirePrincipal(runtime.options.authenticate);

  api.post(
    '/workflows/executions',
    {
      onRequest,
      schema: {
        tags: TAGS,
        security: SECURITY,
        summary:
          'Start a workflow execution (202 pending; 200 with Prefer: wait=N when it ends in time)',
        headers: PreferHeader,
        body: StartExecutionRequest,
        response: {
          200: Type.Ref('ExecutionRecord'),
          202: Type.Ref('ExecutionRecord'),
          409: Type.Ref('ErrorObject'),
          ...ERROR_RESPONSES,
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const body = request.body;
      const executable = loadRequestedWorkflow(body, runtime.options.detectorNames);
      const wait = preferredWait(request.headers.prefer, runtime.options.maxWaitSeconds);
      const trace = runtime.options.tracing ? traceCarrierOf(request.headers) : undefined;
      const started = await runtime.startExecution({
        ...(trace ? { trace } : {}),
        ...executable,
        inputs: body.inputs ?? {},
        trigger: { type: 'api' },
        principal,
        ...(wait > 0 ? { awaitsEnd: true } : {}),
        ...(body.callback_url !== undefined ? { callbackUrl: body.callback_url } : {}),
        ...(body.idempotency_key !== undefined
          ? {
              idempotency: {
                key: body.idempotency_key,
                fingerprint: fingerprintOf([
                  body.workflow ?? body.workflow_file,
                  body.workflow_name,
                  body.inputs ?? {},
                  body.callback_url,
                ]),
              },
            }
          : {}),
      });
      let execution: StoredExecution = started.execution;
      if (!started.created) reply.header('idempotent-replayed', 'true');
      if (wait > 0) {
        reply.header('preference-applied', `wait=${wait}`);
        execution = await waitUntilEnded(runtime, started, principal.owner, wait * 1000);
      } else if (!started.created) {
        execution = await runtime.get(execution.id, principal.owner);
      }
      const record = toExecutionRecord(execution);
      reply.header('location', record.poll_url);
      return reply
        .code(isFinished(execution) && (wait > 0 || !started.created) ? 200 : 202)
        .send(record);
    },
  );

  api.get(
    '/workflows/executions',
    {
      onRequest,
      schema: {
        tags: TAGS,
        security: SECURITY,
        summary:
          "List the caller's executions, newest first (an admin key: every owner's), filtered by status, workflow, trigger and creation time",
        querystring: ExecutionListQuery,
        response: { 200: Type.Ref('ExecutionPage'), ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const query = request.query;
      const limit = query.limit ?? 20;
      const rows = await runtime.options.store.list({
        owner: readableOwner(principal),
        limit: limit + 1,
        ...(query.status ? { status: query.status } : {}),
        ...(query.workflow ? { workflow: query.workflow } : {}),
        ...(query.trigger ? { trigger: query.trigger } : {}),
        ...(query.from ? { from: utc(query.from, 'from') } : {}),
        ...(query.to ? { to: utc(query.to, 'to') } : {}),
        ...(query.cursor ? { after: decodeCursor(query.cursor) } : {}),
      });
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        executions: page.map(toExecutionRecord),
        next_cursor: rows.length > limit && last ? encodeCursor(last) : null,
      };
    },
  );

  api.get(
    '/workflows/executions/:id',
    {
      onRequest,
      schema: {
        tags: TAGS,
        security: SECURITY,
        summary: 'Poll an execution (docs/runtime.md#execution-record)',
        params: ExecutionParams,
        response: { 200: Type.Ref('ExecutionRecord'), ...ERROR_RESPONSES },
      },
    },
    async (request): Promise<ExecutionRecord> => {
      const { id } = request.params;
      return toExecutionRecord(await runtime.get(id, readableOwner(principalOf(request))));
    },
  );

  api.post(
    '/workflows/executions/:id/cancel',
    {
      onRequest,
      schema: {
        tags: TAGS,
        security: SECURITY,
        summary: 'Cancel an execution: in-flight actions are aborted; it ends canceled',
        params: ExecutionParams,
        response: {
          200: Type.Ref('ExecutionRecord'),
          409: Type.Ref('ErrorObject'),
          ...ERROR_RESPONSES,
        },
      },
    },
    async (request): Promise<ExecutionRecord> => {
      const { id } = request.params;
      const execution = await runtime.cancel(id, principalOf(request).owner);
      if (execution.status !== 'canceled') {
        throw new ConflictError(
          `execution ${id} already ended ${execution.status}; only a pending, waiting or running execution can be canceled`,
          { execution_id: id, status: execution.status },
        );
      }
      return toExecutionRecord(execution);
    },
  );
}

/**
 * The execution once it ended, or as it is after `ms`: then durable (it was stored for a caller
 * waiting for its end, see `ExecutionRequest.awaitsEnd`), as an ended one is.
 */
async function waitUntilEnded(
  runtime: Runtime,
  started: { execution: StoredExecution; done: Promise<StoredExecution | undefined> },
  owner: string,
  ms: number,
): Promise<StoredExecution> {
  const execution = await endOrTimeout(runtime, started, owner, ms);
  if (!isFinished(execution)) await runtime.options.store.flush?.();
  return execution;
}

async function endOrTimeout(
  runtime: Runtime,
  started: { execution: StoredExecution; done: Promise<StoredExecution | undefined> },
  owner: string,
  ms: number,
): Promise<StoredExecution> {
  const startedMs = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  const first = await Promise.race([started.done, timeout]);
  clearTimeout(timer);
  if (first && first !== 'timeout') return first;
  if (first === 'timeout') return runtime.get(started.execution.id, owner);
  return runtime.waitFor(started.execution.id, owner, Math.max(0, ms - (Date.now() - startedMs)));
}

/** A `date-time` of the query as stored times are written (ISO 8601 UTC with ms). */
function utc(value: string, field: string): string {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) {
    throw new ValidationError(`${field} is not a time`, { field, constraint: 'format' });
  }
  return new Date(ms).toISOString();
}
