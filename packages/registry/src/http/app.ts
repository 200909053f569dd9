import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { depthCheckedJson, lingerIfBodyUnread } from '@weft/core';
import { sendError, sendNotFound } from './errors.js';
import { ErrorBody } from './schemas.js';

/** Version of the HTTP API documented in the OpenAPI document. */
export const API_VERSION = '0.1.0';

/**
 * A Fastify instance ready for weft's HTTP parts: error bodies (docs/protocol.md#error-object) for every error and
 * unknown route, a lingering close after an answer sent before the body was read, the shared `ErrorObject` schema, and @fastify/swagger collecting the route
 * schemas for `GET /openapi.json`. The server registers the registry, router and runtime on it.
 */
export async function createHttpApp(options: FastifyServerOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: false,
    // Unknown body fields are refused, not silently dropped; query strings are still coerced.
    ajv: {
      customOptions: {
        removeAdditional: false,
        coerceTypes: true,
        useDefaults: true,
        allErrors: false,
      },
    },
    ...options,
  });
  app.setErrorHandler(sendError);
  app.setNotFoundHandler(sendNotFound);
  // Every JSON body's nesting is checked on its text first, before parsing and before schema
  // validation or a route walks it (those recurse): too deep is 400 naming the limit.
  const parseJson = app.getDefaultJsonParser('error', 'ignore');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, depthCheckedJson(parseJson));
  // Only answers sent as errors pass here (a body parser's refusal is one): success pays nothing.
  app.addHook('onError', (request, reply, _error, done) => {
    lingerIfBodyUnread(request.raw, reply.getHeader('connection') === 'close');
    done();
  });
  app.addSchema(ErrorBody);
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
  return app;
}

/** The OpenAPI document of `app` as stable, pretty JSON text (what `docs/openapi.json` holds). */
export function renderOpenApi(app: FastifyInstance): string {
  return `${JSON.stringify(app.swagger(), null, 2)}\n`;
}
