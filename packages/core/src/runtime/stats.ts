import { Type, type Static } from '@weft/core/typebox';
import { ExecutionStatusSchema } from './execution.js';

/** Query of `GET /stats/executions`. */
export const ExecutionStatsQuerySchema = Type.Object(
  {
    since: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'Count executions created from this time on (default: 24 h ago)',
      }),
    ),
    until: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          'Count executions created before this time (default: now); at most 31 days after since',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ExecutionStatsQuerySchema = Static<typeof ExecutionStatsQuerySchema>;

/** Answer of `GET /stats/executions`. */
export const ExecutionStatsSchema = Type.Object(
  {
    since: Type.String({ format: 'date-time' }),
    until: Type.String({ format: 'date-time' }),
    hours: Type.Array(
      Type.Object({
        hour: Type.String({
          description: 'UTC hour the executions were created in: 2026-01-01T13',
        }),
        status: ExecutionStatusSchema,
        count: Type.Integer({ minimum: 1 }),
      }),
      { description: 'Executions created per UTC hour and status (hours without any left out)' },
    ),
    workflows: Type.Array(
      Type.Object({
        workflow: Type.String(),
        count: Type.Integer({ description: 'Its ended executions that had started' }),
        p50_ms: Type.Integer({
          description: 'Median duration, started to finished (nearest rank)',
        }),
        p95_ms: Type.Integer({ description: '95th percentile of the duration (nearest rank)' }),
      }),
      { description: 'Per workflow, the durations of its ended executions' },
    ),
  },
  { $id: 'ExecutionStats' },
);
export type ExecutionStatsSchema = Static<typeof ExecutionStatsSchema>;
