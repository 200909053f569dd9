/** @packageDocumentation weft's HTTP layer: the shared Fastify app, error answers, body checks, OpenAPI and typed routes */
// Route schemas of packages on this layer carry OpenAPI fields (`summary`, `tags`, `security`):
// @fastify/swagger's additions to Fastify's types come with it.
/// <reference types="@fastify/swagger" preserve="true" />
export { AJV_OPTIONS, createHttpApp } from './app.js';
export {
  ensureErrorSchema,
  errorHandler,
  sendError,
  sendNotFound,
  type ErrorHandler,
} from './error-handler.js';
export { installDepthCheckedJson } from './json-body.js';
export { LINGER_BYTES, LINGER_MS, lingerIfBodyUnread, lingerOnError } from './lingering-close.js';
export { API_VERSION, registerOpenApi, renderOpenApi } from './openapi.js';
export {
  errorFromRequest,
  replyWithError,
  type ErrorReply,
  type RequestErrorOptions,
} from './request-error.js';
export { typed, type TypeBoxTypeProvider, type TypedFastifyInstance } from './type-provider.js';
