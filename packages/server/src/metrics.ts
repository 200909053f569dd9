import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  ForbiddenError,
  RESULTS_SUBJECT,
  taskSubject,
  type Broker,
  type Principal,
  type RoutesStore,
} from '@weft/core';
import type { ObservedSources } from '@weft/telemetry';
import { isBrokerInstance } from './broker-dispatch.js';

/** What `GET /metrics` reports on besides the instruments the runs update. */
export interface MetricsSources {
  /** This replica's name (the `replica` label). */
  replica: string;
  /** Executions this replica runs right now; absent without a runtime. */
  inFlight?: () => number;
  /** The broker, when one is configured: queue depths are read from it. */
  broker?: Broker;
  /** This replica's consumer group of `platform.workflow.results`. */
  resultsGroup?: string;
  /** The routing table: plugins with broker instances have a task topic to report. */
  routes: RoutesStore;
}

/** Prometheus text exposition format, version 0.0.4. */
const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** The topics and groups whose depth is reported: each broker plugin's tasks, and our results. */
async function queues(sources: MetricsSources): Promise<{ topic: string; group: string }[]> {
  const found = new Map<string, string>();
  for (const instance of await sources.routes.list()) {
    if (!isBrokerInstance(instance.metadata)) continue;
    const slug = instance.plugin_slug;
    try {
      found.set(taskSubject(slug), `plugin.${slug}`);
    } catch {
      // A slug that cannot be a topic (`results`) never gets tasks.
    }
  }
  if (sources.resultsGroup) found.set(RESULTS_SUBJECT, sources.resultsGroup);
  return [...found].map(([topic, group]) => ({ topic, group }));
}

/** The gauges read at scrape time (queue depth, executions in flight, router instances). */
export function observedSources(sources: MetricsSources): ObservedSources {
  const { broker } = sources;
  return {
    replica: sources.replica,
    ...(sources.inFlight ? { inFlight: sources.inFlight } : {}),
    routerInstances: async () => {
      const counts: Record<string, number> = {};
      for (const instance of await sources.routes.list())
        counts[instance.health] = (counts[instance.health] ?? 0) + 1;
      return counts;
    },
    ...(broker
      ? {
          queueDepths: async () => {
            const depths = await Promise.all(
              (await queues(sources)).map(async ({ topic, group }) => ({
                topic,
                group,
                depth: await broker.pending(topic, group).catch(() => null),
              })),
            );
            return depths.filter((d): d is { topic: string; group: string; depth: number } =>
              Number.isFinite(d.depth),
            );
          },
        }
      : {}),
  };
}

/** Resolves an `Authorization` header to its key (rejects with `UnauthorizedError`). */
export type AuthenticateKey = (authorization: string | undefined) => Promise<Principal>;

/**
 * `GET /metrics`: the OpenTelemetry instruments in the Prometheus text format
 * (docs/observability.md#metrics), for Prometheus to scrape with an admin key
 * (`Authorization: Bearer <key>`): 401 without a valid key, 403 for another key.
 */
export function registerMetrics(
  app: FastifyInstance,
  render: () => Promise<string>,
  authenticate: AuthenticateKey,
): void {
  const adminOnly = async (request: FastifyRequest): Promise<void> => {
    const principal = await authenticate(request.headers.authorization);
    if (!principal.admin) {
      throw new ForbiddenError('only admin keys may read /metrics', { reason: 'not_admin' });
    }
  };
  app.get(
    '/metrics',
    {
      onRequest: adminOnly,
      schema: {
        summary:
          'Metrics in the Prometheus text format (action calls and durations, executions, queue depth, executions in flight); admin key',
        tags: ['health'],
        security: [{ bearerAuth: [] }],
        response: {
          200: { type: 'string', description: 'Prometheus text exposition format 0.0.4' },
          401: { $ref: 'ErrorObject' },
          403: { $ref: 'ErrorObject' },
        },
      },
    },
    async (_request, reply) => reply.type(CONTENT_TYPE).send(await render()),
  );
}
