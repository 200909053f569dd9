import { Type } from '@weft/core/typebox';
import type { FastifyInstance } from 'fastify';
import { UsageReport, ValidationError } from '@weft/core';
import { generateSigningSecret } from '@weft/sdk/callbacks';
import { typed } from '@weft/http';
import type { Runtime } from '../runtime.js';
import { principalOf, requirePrincipal } from '@weft/identity';
import { ERROR_RESPONSES } from './schemas.js';

const UsageQuery = Type.Object(
  {
    since: Type.Optional(
      Type.String({
        pattern: '^\\d{4}-\\d{2}-\\d{2}$',
        description: 'First UTC day (default: 30 days ago)',
      }),
    ),
  },
  { additionalProperties: false },
);

const SigningSecret = Type.Object({
  key_id: Type.String(),
  scheme: Type.Literal('standard-webhooks'),
  secret: Type.String({ description: 'whsec_…: verifies the webhook-signature of callbacks' }),
});

/** `GET /usage` and `GET /workflows/callback-secret`. */
export function registerAccountRoutes(app: FastifyInstance, runtime: Runtime): void {
  const api = typed(app);
  const onRequest = requirePrincipal(runtime.options.authenticate);
  api.get(
    '/usage',
    {
      onRequest,
      schema: {
        tags: ['usage'],
        security: [{ bearerAuth: [] }],
        summary: "Usage of the caller's organisation: executions, action calls, duration",
        querystring: UsageQuery,
        response: { 200: UsageReport, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const { since: given } = request.query;
      const now = runtime.options.clock.now();
      const since = given ?? new Date(now - 30 * 86_400_000).toISOString().slice(0, 10);
      if (Number.isNaN(Date.parse(`${since}T00:00:00Z`))) {
        throw new ValidationError(`since "${since}" is not a date`, {
          field: 'since',
          constraint: 'format',
        });
      }
      const days = await runtime.options.store.usage(principal.owner, since);
      const totals = { executions: 0, action_calls: 0, duration_ms: 0 };
      for (const day of days) {
        totals.executions += day.executions;
        totals.action_calls += day.action_calls;
        totals.duration_ms += day.duration_ms;
      }
      return { owner: principal.owner, since, totals, days };
    },
  );

  api.get(
    '/workflows/callback-secret',
    {
      onRequest,
      schema: {
        tags: ['executions'],
        security: [{ bearerAuth: [] }],
        summary: "The caller key's secret that signs its callbacks (Standard Webhooks)",
        response: { 200: SigningSecret, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const secret = await runtime.options.store.signingSecret(
        principal.keyId,
        generateSigningSecret,
      );
      return { key_id: principal.keyId, scheme: 'standard-webhooks' as const, secret };
    },
  );
}
