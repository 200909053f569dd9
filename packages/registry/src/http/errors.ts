import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorFromRequest, NotFoundError, replyWithError, type WeftError } from '@weft/core';

/** The registry takes definitions as JSON or YAML. */
const OPTIONS = { mediaTypes: ['application/json', 'application/yaml'] };

/** Turns anything thrown by a route or by Fastify itself into a {@link WeftError}. */
export function toWeftError(error: unknown): WeftError {
  return errorFromRequest(error, OPTIONS);
}

/**
 * A Fastify error handler: every error leaves as the error object (docs/protocol.md#error-object) with its
 * status (docs/design.md#errors); a 413 names `bodyLimit` (bytes) when given.
 */
export function errorHandler(bodyLimit?: number) {
  const options = bodyLimit === undefined ? OPTIONS : { ...OPTIONS, bodyLimit };
  return (error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply =>
    replyWithError(error, request, reply, options);
}

/** Fastify error handler: every error leaves as the error object (docs/protocol.md#error-object) with its status (docs/design.md#errors). */
export const sendError = errorHandler();

/** Fastify not-found handler: a NOT_FOUND body (docs/protocol.md#error-object). */
export function sendNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendError(
    new NotFoundError(`no route ${request.method} ${request.url.split('?')[0]}`, {
      method: request.method,
    }),
    request,
    reply,
  );
}
