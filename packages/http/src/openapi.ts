import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';

/** Version of the HTTP API documented in the OpenAPI document. */
export const API_VERSION = '0.1.0';

/**
 * Registers @fastify/swagger on `app`, so that it collects the schemas of every route registered
 * after it, and `GET /openapi.json` (hidden from the document itself) answering with
 * {@link renderOpenApi}. Shared schemas (`addSchema` with an `$id`) appear as components named
 * by their `$id`.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json['$id'] === 'string' ? json['$id'] : `def-${i}`,
    },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'weft',
        description:
          'The HTTP API of weft server: the plugin registry and API keys, the router and the ' +
          'connector contract, the executions API with its events and callbacks, deployed ' +
          'workflows and their triggers, usage, metrics and health. Every error is the error ' +
          'object {status, code, message, details} with the HTTP status of its code. ' +
          'Described in docs/ of the weft repository: protocol.md, registry.md, router.md, ' +
          'runtime.md, triggers.md.',
        version: API_VERSION,
      },
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'weft API key (weft auth create-key)',
          },
        },
      },
    },
  });
  app.get('/openapi.json', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('application/json').send(renderOpenApi(app)),
  );
}

/** The OpenAPI document of `app` as stable, pretty JSON text (what `docs/openapi.json` holds). */
export function renderOpenApi(app: FastifyInstance): string {
  return `${JSON.stringify(app.swagger(), null, 2)}\n`;
}
