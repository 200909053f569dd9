import type {} from '@fastify/swagger';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { WeftError } from '@weft/core';
import { errorFromRequest, replyWithError } from '@weft/http';

/** Turns what a trigger route or Fastify throws into a {@link WeftError}. */
export function asWeftError(error: unknown): WeftError {
  return errorFromRequest(error);
}

/** Fastify error handler of the trigger routes: the error object (docs/protocol.md#error-object), `Retry-After` on 429. */
export function sendTriggerError(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  return replyWithError(error, request, reply);
}

import { ErrorObjectSchema } from '@weft/core';

export { ErrorObjectSchema };

/** Adds {@link ErrorObjectSchema} to `app` unless an enclosing scope already has it. */
export function ensureErrorSchema(app: FastifyInstance): void {
  if (!app.getSchema('ErrorObject')) app.addSchema(ErrorObjectSchema);
}

/** Response schemas of error answers, by status. */
export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, Type.Ref('ErrorObject')]));
