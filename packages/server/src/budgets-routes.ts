import { Type, type Static } from '@weft/core/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  BUDGET_PERIODS,
  budgetPeriodAt,
  budgetScopeKey,
  ForbiddenError,
  NotFoundError,
  OWNER_PATTERN,
  ValidationError,
  type BudgetLedgerStore,
  type BudgetLimits,
  type BudgetScope,
  type DeploymentStore,
  type Principal,
} from '@weft/core';
import { typed } from '@weft/http';
import { principalOf, requirePrincipal } from '@weft/identity';
import type { Runtime } from '@weft/runtime';

const Period = Type.Union(
  BUDGET_PERIODS.map((p) => Type.Literal(p)),
  { description: 'day, week (ISO, from Monday) or month, in UTC' },
);

/** The body of `PUT /budgets/workspaces/{owner}` (at least one limit). */
const WorkspaceBudgetBody = Type.Object(
  {
    max_cost: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, maximum: 1e9, description: 'USD per period' }),
    ),
    max_tokens: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1e15, description: 'Model tokens per period' }),
    ),
    period: Period,
  },
  {
    additionalProperties: false,
    description: 'A workspace budget: at least max_cost or max_tokens',
  },
);

const WorkspaceBudgetRecord = Type.Object(
  {
    owner: Type.String(),
    max_cost: Type.Union([Type.Number(), Type.Null()]),
    max_tokens: Type.Union([Type.Integer(), Type.Null()]),
    period: Period,
    updated_at: Type.String(),
    updated_by: Type.String({ description: 'The admin key that set it' }),
  },
  { $id: 'WorkspaceBudget' },
);

const BudgetStatus = Type.Object(
  {
    scope: Type.Union([Type.Literal('workflow'), Type.Literal('workspace')]),
    owner: Type.String(),
    workflow: Type.Union([Type.String(), Type.Null()], {
      description: 'The workflow (scope workflow), null for the workspace',
    }),
    period: Period,
    period_start: Type.String({ description: 'Start of the current period (UTC)' }),
    period_end: Type.String({ description: 'When the period ends and spending starts over' }),
    max_cost: Type.Union([Type.Number(), Type.Null()]),
    max_tokens: Type.Union([Type.Integer(), Type.Null()]),
    spent_cost_usd: Type.Number(),
    spent_tokens: Type.Integer(),
    reserved_cost_usd: Type.Number({ description: 'Held by model calls in flight' }),
    reserved_tokens: Type.Integer(),
  },
  { $id: 'BudgetStatus' },
);

const BudgetList = Type.Object({
  owner: Type.String(),
  budgets: Type.Array(Type.Ref('BudgetStatus')),
});

const OwnerParams = Type.Object(
  { owner: Type.String({ pattern: OWNER_PATTERN, description: 'The workspace (owner)' }) },
  { additionalProperties: false },
);

const ListQuery = Type.Object(
  {
    owner: Type.Optional(
      Type.String({ pattern: OWNER_PATTERN, description: 'Admin keys: another workspace' }),
    ),
  },
  { additionalProperties: false },
);

const ERRORS = {
  400: Type.Ref('ErrorObject'),
  401: Type.Ref('ErrorObject'),
  403: Type.Ref('ErrorObject'),
  404: Type.Ref('ErrorObject'),
  503: Type.Ref('ErrorObject'),
} as const;

/** What the budget routes need. */
export interface BudgetRoutesOptions {
  ledger: BudgetLedgerStore;
  /** The deployed workflows: those with `budgets` are listed. Absent: only the workspace's. */
  deployments: DeploymentStore | undefined;
  /** Milliseconds since the epoch: the current period (the runner's clock). */
  now: () => number;
}

/**
 * Budgets across runs over HTTP (docs/agents.md#budgets-across-runs): `GET /budgets` (the
 * caller's workspace budget and those of its deployed workflows, with what the current period
 * spent and holds reserved), and the workspace budgets admins set: `GET`, `PUT` and `DELETE
 * /budgets/workspaces/{owner}` (changes audited as `budget.set` / `budget.delete`).
 */
export function registerBudgetRoutes(
  app: FastifyInstance,
  runtime: Runtime,
  options: BudgetRoutesOptions,
): void {
  if (!app.getSchema('BudgetStatus')) app.addSchema(BudgetStatus);
  if (!app.getSchema('WorkspaceBudget')) app.addSchema(WorkspaceBudgetRecord);
  const api = typed(app);
  const onRequest = requirePrincipal(runtime.options.authenticate);
  // Refused before the body is read: a key that may not change budgets learns nothing more.
  const admin = (verb: string) => [
    onRequest,
    async (request: FastifyRequest) => void adminOnly(principalOf(request), verb),
  ];
  const { ledger } = options;
  const audit = runtime.options.audit;

  api.get(
    '/budgets',
    {
      onRequest,
      schema: {
        tags: ['budgets'],
        security: [{ bearerAuth: [] }],
        summary:
          "Budgets across runs of the caller's workspace: the workspace budget and those of its deployed workflows, with the current period's spend, reservations and end",
        querystring: ListQuery,
        response: { 200: BudgetList, ...ERRORS },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const owner = readable(principal, request.query.owner);
      const nowMs = options.now();
      const wanted: { scope: BudgetScope; limits: BudgetLimits }[] = [];
      const workspace = await ledger.getWorkspaceBudget(owner);
      if (workspace) wanted.push({ scope: { kind: 'workspace', owner }, limits: workspace });
      for (const deployed of (await options.deployments?.list(owner)) ?? []) {
        const budgets = (deployed.definition as { budgets?: BudgetLimits }).budgets;
        if (budgets) {
          wanted.push({
            scope: { kind: 'workflow', owner, workflow: deployed.name },
            limits: budgets,
          });
        }
      }
      const periods = wanted.map((w) => budgetPeriodAt(w.limits.period, nowMs));
      const rows = await ledger.usage(
        wanted.map((w, i) => ({ scope: budgetScopeKey(w.scope), periodStart: periods[i]!.start })),
      );
      return {
        owner,
        budgets: wanted.map((w, i) => ({
          scope: w.scope.kind,
          owner,
          workflow: w.scope.kind === 'workflow' ? w.scope.workflow : null,
          period: w.limits.period,
          period_start: periods[i]!.start,
          period_end: periods[i]!.end,
          max_cost: w.limits.maxCost ?? null,
          max_tokens: w.limits.maxTokens ?? null,
          spent_cost_usd: usd(rows[i]!.spentCostUsd),
          spent_tokens: rows[i]!.spentTokens,
          reserved_cost_usd: usd(rows[i]!.reservedCostUsd),
          reserved_tokens: rows[i]!.reservedTokens,
        })),
      };
    },
  );

  api.get(
    '/budgets/workspaces/:owner',
    {
      onRequest,
      schema: {
        tags: ['budgets'],
        security: [{ bearerAuth: [] }],
        summary: "A workspace's budget (admin keys; a caller of that workspace reads its own)",
        params: OwnerParams,
        response: { 200: Type.Ref('WorkspaceBudget'), ...ERRORS },
      },
    },
    async (request) => {
      const owner = readable(principalOf(request), request.params.owner);
      const budget = await ledger.getWorkspaceBudget(owner);
      if (!budget) throw noBudget(owner);
      return recordOf(budget);
    },
  );

  api.put(
    '/budgets/workspaces/:owner',
    {
      onRequest: admin('set'),
      schema: {
        tags: ['budgets'],
        security: [{ bearerAuth: [] }],
        summary: "Sets a workspace's budget across runs (admin key); audited as budget.set",
        params: OwnerParams,
        body: WorkspaceBudgetBody,
        response: { 200: Type.Ref('WorkspaceBudget'), ...ERRORS },
      },
    },
    async (request) => {
      const principal = adminOnly(principalOf(request), 'set');
      const body: Static<typeof WorkspaceBudgetBody> = request.body;
      if (body.max_cost === undefined && body.max_tokens === undefined) {
        throw new ValidationError('a budget needs a limit: max_cost, max_tokens, or both', {
          field: 'max_cost',
          constraint: 'required',
        });
      }
      const { owner } = request.params;
      const budget = {
        owner,
        ...(body.max_cost !== undefined ? { maxCost: body.max_cost } : {}),
        ...(body.max_tokens !== undefined ? { maxTokens: body.max_tokens } : {}),
        period: body.period,
        updatedAt: new Date(runtime.options.clock.now()).toISOString(),
        updatedBy: principal.keyId,
      };
      // Recorded before it takes effect: a change that cannot be audited is not made.
      await audit.record({
        subject: principal.subject,
        credential: principal.kind,
        owner,
        action: 'budget.set',
        decision: 'allow',
        reason: `workspace budget of ${owner} set: ${describeLimits(body)}`,
      });
      await ledger.setWorkspaceBudget(budget);
      return recordOf(budget);
    },
  );

  api.delete(
    '/budgets/workspaces/:owner',
    {
      onRequest: admin('delete'),
      schema: {
        tags: ['budgets'],
        security: [{ bearerAuth: [] }],
        summary: "Removes a workspace's budget (admin key); audited as budget.delete",
        params: OwnerParams,
        response: { 204: Type.Null(), ...ERRORS },
      },
    },
    async (request, reply) => {
      const principal = adminOnly(principalOf(request), 'delete');
      const { owner } = request.params;
      if (!(await ledger.getWorkspaceBudget(owner))) throw noBudget(owner);
      await audit.record({
        subject: principal.subject,
        credential: principal.kind,
        owner,
        action: 'budget.delete',
        decision: 'allow',
        reason: `workspace budget of ${owner} removed`,
      });
      await ledger.deleteWorkspaceBudget(owner);
      return reply.code(204).send();
    },
  );
}

/** The owner a caller may read: its own; an admin key any. Another's is not found. */
function readable(principal: Principal, owner: string | undefined): string {
  if (owner === undefined || owner === principal.owner || principal.admin) {
    return owner ?? principal.owner;
  }
  throw noBudget(owner);
}

function adminOnly(principal: Principal, verb: string): Principal {
  if (!principal.admin) {
    throw new ForbiddenError(`only admin keys may ${verb} workspace budgets`, {
      reason: 'not_admin',
    });
  }
  return principal;
}

function noBudget(owner: string): NotFoundError {
  return new NotFoundError(`no workspace budget of ${owner} that you can read`, {
    resource_type: 'budget',
    resource_id: owner,
  });
}

function recordOf(budget: {
  owner: string;
  maxCost?: number | undefined;
  maxTokens?: number | undefined;
  period: (typeof BUDGET_PERIODS)[number];
  updatedAt: string;
  updatedBy: string;
}) {
  return {
    owner: budget.owner,
    max_cost: budget.maxCost ?? null,
    max_tokens: budget.maxTokens ?? null,
    period: budget.period,
    updated_at: budget.updatedAt,
    updated_by: budget.updatedBy,
  };
}

function describeLimits(body: Static<typeof WorkspaceBudgetBody>): string {
  const parts = [
    body.max_cost !== undefined ? `max_cost ${body.max_cost} USD` : undefined,
    body.max_tokens !== undefined ? `max_tokens ${body.max_tokens}` : undefined,
  ].filter(Boolean);
  return `${parts.join(', ')} a ${body.period}`;
}

const usd = (value: number): number => Math.round(value * 1e9) / 1e9;
