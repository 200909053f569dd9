import { Type } from '@weft/core/typebox';
import type { FastifyInstance } from 'fastify';
import { ExecutionStatsQuerySchema, ValidationError } from '@weft/core';
import { typed } from '@weft/http';
import { principalOf, requirePrincipal } from '@weft/identity';
import type { Runtime } from '../runtime.js';
import { readableOwner } from './owners.js';
import { ERROR_RESPONSES } from './schemas.js';

const DAY_MS = 86_400_000;
/** The longest range one request counts. */
const MAX_RANGE_MS = 31 * DAY_MS;

/**
 * `GET /stats/executions`: executions per hour by status and duration percentiles per
 * workflow, counted by the store in SQL over the caller's executions (an admin key: every
 * owner's), as the list shows them.
 */
export function registerStatsRoutes(app: FastifyInstance, runtime: Runtime): void {
  const api = typed(app);
  api.get(
    '/stats/executions',
    {
      onRequest: requirePrincipal(runtime.options.authenticate),
      schema: {
        tags: ['executions'],
        security: [{ bearerAuth: [] }],
        summary:
          'Executions per hour by status and p50/p95 duration per workflow (default: the last 24 h)',
        querystring: ExecutionStatsQuerySchema,
        response: { 200: Type.Ref('ExecutionStats'), ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const now = runtime.options.clock.now();
      const until = timeOf(request.query.until, 'until') ?? now;
      const since = timeOf(request.query.since, 'since') ?? until - DAY_MS;
      if (since >= until || until - since > MAX_RANGE_MS) {
        throw new ValidationError('since must be before until, and at most 31 days before it', {
          field: 'since',
          constraint: 'range',
        });
      }
      const range = { since: new Date(since).toISOString(), until: new Date(until).toISOString() };
      const stats = await runtime.options.store.stats({
        owner: readableOwner(principalOf(request)),
        ...range,
      });
      return { ...range, ...stats };
    },
  );
}

/** A `date-time` of the query in epoch ms (ajv checked its format); undefined when absent. */
function timeOf(value: string | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms))
    throw new ValidationError(`${field} is not a time`, { field, constraint: 'format' });
  return ms;
}
