import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { ErrorObjectSchema } from '@weft/core';
import { errorHandler, sendNotFound } from './error-handler.js';
import { installDepthCheckedJson } from './json-body.js';
import { lingerOnError } from './lingering-close.js';
import { registerOpenApi } from './openapi.js';
import { rememberingSerializers } from './serializers.js';

/**
 * The ajv settings of every weft HTTP app (Fastify's `ajv.customOptions`): unknown body fields
 * are refused, not silently dropped (`removeAdditional: false`); query strings and path
 * parameters are still coerced to the types their schemas name; schema defaults are filled in;
 * validation stops at the first failure, which the error object names; `x-expected` (the wording
 * of a shared schema's expected value, e.g. the quantities of a step's `runtime`) is an
 * annotation. Test harnesses that build their own Fastify instance use these too, so they
 * validate as the server does.
 */
export const AJV_OPTIONS = {
  removeAdditional: false,
  coerceTypes: true,
  useDefaults: true,
  allErrors: false,
  keywords: ['x-expected'],
};

/**
 * The media types the server's API takes, named when a request sends another one to a route of
 * the app itself: JSON, and YAML for definitions (plugins, deployed workflows). Each plugin's own
 * error handler names those of its routes.
 */
const API_MEDIA_TYPES = ['application/json', 'application/yaml'];

/**
 * A Fastify instance ready for weft's HTTP parts: {@link AJV_OPTIONS}, error bodies
 * (docs/protocol.md#error-object) for every error and unknown route, every JSON body's nesting
 * checked on its text, a lingering close after an answer sent before the body was read, the
 * shared `ErrorObject` schema, @fastify/swagger collecting the route schemas for
 * `GET /openapi.json`, and response serializers compiled once per process. The server registers
 * the registry, router and runtime on it.
 */
export async function createHttpApp(options: FastifyServerOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: false,
    ajv: { customOptions: AJV_OPTIONS },
    schemaController: { compilersFactory: { buildSerializer: rememberingSerializers } },
    ...options,
  });
  app.setErrorHandler(errorHandler({ mediaTypes: API_MEDIA_TYPES }));
  app.setNotFoundHandler(sendNotFound);
  // Every JSON body's nesting is checked on its text first, before parsing and before schema
  // validation or a route walks it (those recurse): too deep is 400 naming the limit.
  installDepthCheckedJson(app);
  lingerOnError(app);
  app.addSchema(ErrorObjectSchema);
  await registerOpenApi(app);
  return app;
}
