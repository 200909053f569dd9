import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import {
  InternalError,
  NotFoundError,
  PayloadTooLargeError,
  toErrorObject,
  ValidationError,
  WeftError,
} from '@weft/core';

/** Turns anything thrown by a route or by Fastify itself into a {@link WeftError}. */
export function toWeftError(error: unknown): WeftError {
  if (error instanceof WeftError) return error;
  const fastify = error as Partial<FastifyError> & { validationContext?: string };
  if (fastify.validation && fastify.validation.length > 0) {
    const first = fastify.validation[0]!;
    const missing = first.params['missingProperty'];
    const field =
      typeof missing === 'string'
        ? missing
        : first.instancePath.replace(/^\//, '').replaceAll('/', '.');
    return new ValidationError(
      `${fastify.validationContext ?? 'request'} ${field || ''} ${first.message ?? 'is invalid'}`
        .replace(/\s+/g, ' ')
        .trim(),
      {
        field: field || (fastify.validationContext ?? ''),
        constraint: first.keyword,
      },
    );
  }
  switch (fastify.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new PayloadTooLargeError('the request body is over the size limit', {
        limit: 'bodyLimit',
      });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ValidationError('send the body as application/json or application/yaml', {
        field: 'content-type',
        constraint: 'media_type',
      });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ValidationError(fastify.message ?? 'invalid body', {
        field: 'body',
        constraint: 'syntax',
      });
  }
  const status = fastify.statusCode ?? 500;
  if (status === 404) return new NotFoundError(fastify.message ?? 'not found');
  if (status >= 400 && status < 500) {
    return new ValidationError(fastify.message ?? 'bad request', {
      field: '',
      constraint: fastify.code ?? 'request',
    });
  }
  return InternalError.from(error);
}

/** Fastify error handler: every error leaves as the §2.10 error object with its DESIGN.md §4 status. */
export function sendError(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const weft = toWeftError(error);
  if (weft.httpStatus >= 500) request.log.error({ err: error }, 'request failed');
  if (weft.code === 'RATE_LIMITED')
    reply.header('Retry-After', String(weft.details['retry_after'] ?? 1));
  return reply
    .code(weft.httpStatus)
    .type('application/json')
    .send(JSON.stringify(toErrorObject(weft)));
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
