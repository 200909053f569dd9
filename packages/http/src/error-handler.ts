import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ErrorObjectSchema, NotFoundError } from '@weft/core';
import { replyWithError, type RequestErrorOptions } from './request-error.js';

/** A Fastify error handler (`app.setErrorHandler`). */
export type ErrorHandler = (
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
) => FastifyReply;

/**
 * A Fastify error handler: every error leaves as the error object (docs/protocol.md#error-object)
 * with its status (docs/design.md#errors). `options` name the media types the scope's routes
 * accept and its body limit (else a 413 names the route's own limit).
 */
export function errorHandler(options: RequestErrorOptions = {}): ErrorHandler {
  return (error, request, reply) => replyWithError(error, request, reply, options);
}

/**
 * The error handler of routes that take JSON only: the error object with its status,
 * `Retry-After` on `RATE_LIMITED` (and on `UNAVAILABLE` naming `details.retry_after`).
 */
export const sendError: ErrorHandler = errorHandler();

/** Fastify not-found handler: a `NOT_FOUND` error object naming the method and path. */
export function sendNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendError(
    new NotFoundError(`no route ${request.method} ${request.url.split('?')[0]}`, {
      method: request.method,
    }),
    request,
    reply,
  );
}

/**
 * Adds the error object's schema (`$id: ErrorObject`, what `Type.Ref('ErrorObject')` in a
 * route's responses points to) unless an enclosing scope already has it: a plugin registered on
 * the server's app finds it there, one registered on a bare Fastify instance adds its own.
 */
export function ensureErrorSchema(app: FastifyInstance): void {
  if (!app.getSchema('ErrorObject')) app.addSchema(ErrorObjectSchema);
}
