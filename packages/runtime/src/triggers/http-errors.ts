import type {} from '@fastify/swagger';
import { Type } from '@sinclair/typebox';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  ERROR_CODES,
  InternalError,
  NotFoundError,
  PayloadTooLargeError,
  toErrorObject,
  ValidationError,
  WeftError,
} from '@weft/core';

/** Turns what a trigger route or Fastify throws into a {@link WeftError}. */
export function asWeftError(error: unknown): WeftError {
  if (error instanceof WeftError) return error;
  const fastify = error as Partial<FastifyError>;
  if (fastify.validation && fastify.validation.length > 0) {
    const first = fastify.validation[0]!;
    const missing = first.params['missingProperty'];
    const field =
      typeof missing === 'string'
        ? missing
        : first.instancePath.replace(/^\//, '').replaceAll('/', '.');
    return new ValidationError(
      `${fastify.validationContext ?? 'request'} ${field} ${first.message ?? 'is invalid'}`
        .replace(/\s+/g, ' ')
        .trim(),
      { field: field || (fastify.validationContext ?? 'body'), constraint: first.keyword },
    );
  }
  if (fastify.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new PayloadTooLargeError('the request body is over the size limit', {});
  }
  if (fastify.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new ValidationError('unsupported Content-Type for this route', {
      field: 'content-type',
      constraint: 'media_type',
    });
  }
  const status = fastify.statusCode ?? 500;
  if (status === 404) return new NotFoundError(fastify.message ?? 'not found');
  if (status >= 400 && status < 500) {
    return new ValidationError(fastify.message ?? 'bad request', {
      field: 'body',
      constraint: fastify.code ?? 'request',
    });
  }
  return InternalError.from(error);
}

/** Fastify error handler of the trigger routes: the §2.10 error object, `Retry-After` on 429. */
export function sendTriggerError(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const weft = asWeftError(error);
  if (weft.httpStatus >= 500) request.log.error({ err: error }, 'request failed');
  if (weft.code === 'RATE_LIMITED') {
    reply.header('Retry-After', String(weft.details['retry_after'] ?? 1));
  }
  return reply
    .code(weft.httpStatus)
    .type('application/json')
    .send(JSON.stringify(toErrorObject(weft)));
}

/** The §2.10 error object schema (same `$id` as the registry's, added when missing). */
export const ErrorObjectSchema = Type.Object(
  {
    status: Type.Literal('error'),
    code: Type.Union(ERROR_CODES.map((c) => Type.Literal(c))),
    message: Type.String(),
    details: Type.Record(Type.String(), Type.Unknown()),
  },
  { $id: 'ErrorObject', description: 'Error object (SPEC.md §2.10)' },
);

/** Adds {@link ErrorObjectSchema} to `app` unless an enclosing scope already has it. */
export function ensureErrorSchema(app: FastifyInstance): void {
  if (!app.getSchema('ErrorObject')) app.addSchema(ErrorObjectSchema);
}

/** Response schemas of error answers, by status. */
export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, Type.Ref('ErrorObject')]));
