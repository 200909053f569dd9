import type { FastifyInstance, FastifyRequest } from 'fastify';
import { RESULTS_SUBJECT, taskSubject } from '@weft/broker';
import {
  errorResponses,
  ForbiddenError,
  type Broker,
  type Principal,
  type RoutesStore,
} from '@weft/core';
import type { ObservedSources, WeftMetrics } from '@weft/telemetry';
import { isBrokerInstance } from './dispatch/index.js';

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
  /**
   * Executions waiting to be claimed (pending, or their lease expired), reported as the queue
   * `{topic="executions", group="runtime"}`, broker or not; absent without a runtime.
   */
  claimable?: () => Promise<number>;
}

/** The queue-depth labels of the executions waiting for a worker of the runtime. */
export const EXECUTIONS_QUEUE = { topic: 'executions', group: 'runtime' } as const;

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
    ...(broker || sources.claimable
      ? {
          queueDepths: async () => {
            const depths = await Promise.all([
              ...(sources.claimable
                ? [{ ...EXECUTIONS_QUEUE, depth: await sources.claimable().catch(() => null) }]
                : []),
              ...(broker ? await queues(sources) : []).map(async ({ topic, group }) => ({
                topic,
                group,
                depth: await broker!.pending(topic, group).catch(() => null),
              })),
            ]);
            // A source that cannot answer now (database or broker down) is left out.
            return depths.filter((d): d is { topic: string; group: string; depth: number } =>
              Number.isFinite(d.depth),
            );
          },
        }
      : {}),
  };
}

/** The route patterns of the registry's API (`/plugins...`, `/keys`, `/auth/...`). */
const REGISTRY_ROUTE = /^\/(?:plugins|keys|auth)(?:\/|$)/;

/**
 * Counts the registry's requests (`weft_registry_requests_total{route,status}`) by route
 * pattern, so label values stay bounded; other routes are not counted.
 */
export function countRegistryRequests(app: FastifyInstance, metrics: WeftMetrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url;
    if (route !== undefined && REGISTRY_ROUTE.test(route))
      metrics.registryRequest(route, reply.statusCode);
    done();
  });
}

/** Resolves an `Authorization` header to its key (rejects with `UnauthorizedError`). */
export type AuthenticateKey = (authorization: string | undefined) => Promise<Principal>;

/** The two renderings of the instruments `GET /metrics` answers with. */
export interface MetricsRenderers {
  /** The Prometheus text format 0.0.4. */
  text(): Promise<string>;
  /** The JSON rendering (`{metrics: [{name, type, description, unit, points}]}`). */
  json(): Promise<unknown>;
}

/**
 * Whether an `Accept` header asks for JSON rather than text: it names `application/json` with a
 * weight above 0 and at least that of any text type it names. A scraper's (`text/plain`,
 * `application/openmetrics-text`, `*\/*`) or none gets text.
 */
export function wantsJson(accept: string | undefined): boolean {
  if (!accept) return false;
  let json = 0;
  let text = 0;
  for (const part of accept.split(',')) {
    const [type = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (!Number.isFinite(weight)) continue;
    if (type === 'application/json') json = Math.max(json, weight);
    else if (type.startsWith('text/') || type === 'application/openmetrics-text')
      text = Math.max(text, weight);
  }
  return json > 0 && json >= text;
}

const METRICS_JSON_SCHEMA = {
  type: 'object',
  description:
    'The same instruments as JSON (docs/observability.md#metrics): one entry per metric with its series',
  required: ['metrics'],
  properties: {
    metrics: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'type', 'description', 'unit', 'points'],
        properties: {
          name: { type: 'string' },
          type: { type: 'string', enum: ['counter', 'gauge', 'histogram'] },
          description: { type: 'string' },
          unit: { type: 'string' },
          points: {
            type: 'array',
            items: {
              type: 'object',
              required: ['labels'],
              properties: {
                labels: { type: 'object', additionalProperties: true },
                value: { type: 'number' },
                count: { type: 'number' },
                sum: { type: 'number' },
                buckets: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: {
                      le: { oneOf: [{ type: 'number' }, { type: 'string', enum: ['+Inf'] }] },
                      count: { type: 'number' },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
} as const;

/**
 * `GET /metrics`: the OpenTelemetry instruments in the Prometheus text format
 * (docs/observability.md#metrics), for Prometheus to scrape with an admin key
 * (`Authorization: Bearer <key>`): 401 without a valid key, 403 for another key. With
 * `Accept: application/json` the same instruments as JSON.
 */
export function registerMetrics(
  app: FastifyInstance,
  render: MetricsRenderers,
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
          'Metrics in the Prometheus text format, or as JSON with Accept: application/json (action calls and durations, executions, queue depth, executions in flight, webhooks, registry requests, router instances, the process); admin key',
        tags: ['health'],
        security: [{ bearerAuth: [] }],
        response: {
          200: {
            description: 'Prometheus text exposition format 0.0.4; JSON when asked for',
            content: {
              'text/plain': {
                schema: { type: 'string', description: 'Prometheus text exposition format 0.0.4' },
              },
              'application/json': { schema: METRICS_JSON_SCHEMA },
            },
          },
          ...errorResponses(401, 403),
        },
      },
    },
    async (request, reply) =>
      wantsJson(request.headers.accept)
        ? reply.type('application/json; charset=utf-8').send(JSON.stringify(await render.json()))
        : reply.type(CONTENT_TYPE).send(await render.text()),
  );
}
