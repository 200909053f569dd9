import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorFromRequest, NotFoundError, replyWithError, type WeftError } from '@weft/core';

/** The registry takes definitions as JSON or YAML. */
const OPTIONS = { mediaTypes: ['application/json', 'application/yaml'] };

/** Turns anything thrown by a route or by Fastify itself into a {@link WeftError}. */
export function toWeftError(error: unknown): WeftError {
  return errorFromRequest(error, OPTIONS);
}

/** Fastify error handler: every error leaves as the §2.10 error object with its DESIGN.md §4 status. */
export function sendError(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  return replyWithError(error, request, reply, OPTIONS);
}

/** Fastify not-found handler: a §2.10 NOT_FOUND body. */
export function sendNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendError(
    new NotFoundError(`no route ${request.method} ${request.url.split('?')[0]}`, {
      method: request.method,
    }),
    request,
    reply,
  );
}
