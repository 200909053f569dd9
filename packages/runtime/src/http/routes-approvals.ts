import { Type, type Static } from '@weft/core/typebox';
import type { FastifyInstance } from 'fastify';
import { principalOf, requirePrincipal } from '@weft/identity';
import {
  Approvals,
  MAX_APPROVAL_COMMENT,
  type ApprovalVerdict,
} from '../authorization/approvals.js';
import { decodeCursor, encodeCursor } from '../executions/cursor.js';
import { toExecutionRecord } from '../executions/record.js';
import { typed } from '@weft/http';
import type { Runtime } from '../runtime.js';
import { ERROR_RESPONSES, ExecutionParams } from './schemas.js';

const TAGS = ['approvals'];
const SECURITY = [{ bearerAuth: [] }];

const ApprovalListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
  },
  { additionalProperties: false },
);
type ApprovalListQuery = Static<typeof ApprovalListQuery>;

/** Body of `POST .../approve` and `.../reject`. */
const DecisionBody = Type.Union([
  Type.Object(
    {
      comment: Type.Optional(
        Type.String({
          maxLength: MAX_APPROVAL_COMMENT,
          description: 'Why; kept with the decision',
        }),
      ),
      arguments: Type.Optional(
        Type.Object(
          {},
          {
            additionalProperties: true,
            description:
              "Approve only, an execution waiting for a tool call (`waiting_for.kind: tool_call`): the arguments the tool runs with instead of the model's, checked against the tool's input schema and audited as an edit",
          },
        ),
      ),
    },
    { additionalProperties: false },
  ),
  Type.Null(),
]);

/**
 * `GET /approvals` (the waiting runs the caller may decide) and `POST
 * /workflows/executions/{id}/approve|reject` (docs/authorization.md#approvals).
 */
export function registerApprovalRoutes(app: FastifyInstance, runtime: Runtime): void {
  const api = typed(app);
  const onRequest = requirePrincipal(runtime.options.authenticate);
  const approvals = new Approvals(runtime, runtime.options.audit);

  api.get(
    '/approvals',
    {
      onRequest,
      schema: {
        tags: TAGS,
        security: SECURITY,
        summary:
          "List the executions of the caller's owner waiting for an approval it may give, newest first",
        querystring: ApprovalListQuery,
        response: { 200: Type.Ref('ExecutionPage'), ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const query = request.query;
      const page = await approvals.list(
        principalOf(request),
        query.limit ?? 20,
        query.cursor !== undefined ? decodeCursor(query.cursor) : undefined,
      );
      return {
        executions: page.executions.map(toExecutionRecord),
        next_cursor: page.next ? encodeCursor(page.next) : null,
      };
    },
  );

  for (const verdict of ['approve', 'reject'] as const satisfies readonly ApprovalVerdict[]) {
    api.post(
      `/workflows/executions/:id/${verdict}`,
      {
        onRequest,
        schema: {
          tags: TAGS,
          security: SECURITY,
          summary:
            verdict === 'approve'
              ? 'Approve an execution waiting for approval: it runs on (a tool call: the tool runs, with `arguments` when given)'
              : 'Reject an execution waiting for approval: it ends canceled (a tool call: the model is told, or the step fails with on_reject: fail)',
          params: ExecutionParams,
          body: DecisionBody,
          response: {
            200: Type.Ref('ExecutionRecord'),
            403: Type.Ref('ErrorObject'),
            409: Type.Ref('ErrorObject'),
            ...ERROR_RESPONSES,
          },
        },
      },
      async (request) => {
        const { id } = request.params;
        const body = request.body;
        const execution = await approvals.decide(
          id,
          principalOf(request),
          verdict,
          body?.comment,
          body?.arguments,
        );
        return toExecutionRecord(execution);
      },
    );
  }
}
