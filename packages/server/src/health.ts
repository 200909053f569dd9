import type { FastifyInstance } from 'fastify';
import { HealthResponse, type RegistryStore } from '@weft/core';

/** Version reported by `GET /healthz`. */
export const SERVER_VERSION = '0.1.0';

/** `GET /healthz` in the shape (docs/protocol.md#health): 200 when the database answers, 503 when it does not. */
export function registerHealth(app: FastifyInstance, store: RegistryStore): void {
  app.get(
    '/healthz',
    {
      schema: {
        summary: 'Health (docs/protocol.md#health)',
        tags: ['health'],
        response: { 200: HealthResponse, 503: HealthResponse },
      },
    },
    async (_request, reply) => {
      let database = 'healthy';
      try {
        await store.ping();
      } catch {
        database = 'unhealthy';
      }
      const ok = database === 'healthy';
      const body: HealthResponse = {
        status: ok ? 'ok' : 'unhealthy',
        version: SERVER_VERSION,
        checks: { database, registry: ok ? 'healthy' : 'unhealthy' },
      };
      return reply.code(ok ? 200 : 503).send(body);
    },
  );
}
