import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  ForbiddenError,
  RESULTS_SUBJECT,
  taskSubject,
  type Broker,
  type Principal,
  type RoutesStore,
} from '@weft/core';
import { isBrokerInstance } from './broker-dispatch.js';

/** What `GET /metrics` reports on. */
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

function label(value: string): string {
  return value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n');
}

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

/** Renders the metrics of SPEC.md §6 item 6 in the Prometheus text format. */
export async function renderMetrics(sources: MetricsSources): Promise<string> {
  const lines: string[] = [];
  if (sources.broker) {
    lines.push(
      '# HELP weft_queue_depth Messages of a broker topic not yet acknowledged by its consumer group.',
      '# TYPE weft_queue_depth gauge',
    );
    const broker = sources.broker;
    const depths = await Promise.all(
      (await queues(sources)).map(async ({ topic, group }) => ({
        topic,
        group,
        depth: await broker.pending(topic, group).catch(() => null),
      })),
    );
    for (const { topic, group, depth } of depths) {
      if (depth === null) continue;
      lines.push(`weft_queue_depth{topic="${label(topic)}",group="${label(group)}"} ${depth}`);
    }
  }
  if (sources.inFlight) {
    lines.push(
      '# HELP weft_executions_in_flight Executions this replica is running (holds a lease on).',
      '# TYPE weft_executions_in_flight gauge',
      `weft_executions_in_flight{replica="${label(sources.replica)}"} ${sources.inFlight()}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** Resolves an `Authorization` header to its key (rejects with `UnauthorizedError`). */
export type AuthenticateKey = (authorization: string | undefined) => Promise<Principal>;

/**
 * `GET /metrics`: queue depth per topic and executions in flight, for Prometheus to scrape with
 * an admin key (`Authorization: Bearer <key>`): 401 without a valid key, 403 for another key.
 */
export function registerMetrics(
  app: FastifyInstance,
  sources: MetricsSources,
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
          'Metrics in the Prometheus text format (queue depth, executions in flight); admin key',
        tags: ['health'],
        security: [{ bearerAuth: [] }],
        response: {
          200: { type: 'string', description: 'Prometheus text exposition format 0.0.4' },
          401: { $ref: 'ErrorObject' },
          403: { $ref: 'ErrorObject' },
        },
      },
    },
    async (_request, reply) => reply.type(CONTENT_TYPE).send(await renderMetrics(sources)),
  );
}
