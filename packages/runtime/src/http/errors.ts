import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import {
  InternalError,
  NotFoundError,
  PayloadTooLargeError,
  toErrorObject,
  ValidationError,
  WeftError,
} from '@weft/core';

/** Turns what a runtime route or Fastify throws into a {@link WeftError}. */
export function runtimeError(error: unknown): WeftError {
  if (error instanceof WeftError) return error;
  const fastify = error as Partial<FastifyError>;
  const first = fastify.validation?.[0];
  if (first) {
    const missing = first.params['missingProperty'];
    const extra = first.params['additionalProperty'];
    const path = first.instancePath.replace(/^\//, '').replaceAll('/', '.');
    const field =
      typeof missing === 'string'
        ? [path, missing].filter(Boolean).join('.')
        : typeof extra === 'string'
          ? [path, extra].filter(Boolean).join('.')
          : path;
    const where = fastify.validationContext ?? 'body';
    return new ValidationError(
      `${where} ${field ? `field "${field}" ` : ''}${first.message ?? 'is invalid'}${typeof extra === 'string' ? ` ("${extra}" is not a known field)` : ''}`,
      { field: field || where, constraint: first.keyword },
    );
  }
  switch (fastify.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new PayloadTooLargeError('the request body is over the size limit', {});
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ValidationError('send the body as application/json', {
        field: 'content-type',
        constraint: 'media_type',
      });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ValidationError(fastify.message ?? 'the body is not valid JSON', {
        field: 'body',
        constraint: 'syntax',
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

/** Error handler of the runtime routes: the §2.10 error object with its DESIGN.md §4 status. */
export function sendRuntimeError(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const weft = runtimeError(error);
  if (weft.httpStatus >= 500) request.log.error({ err: error }, 'request failed');
  return reply
    .code(weft.httpStatus)
    .type('application/json')
    .send(JSON.stringify(toErrorObject(weft)));
}
