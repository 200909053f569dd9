import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import {
  InternalError,
  NotFoundError,
  PayloadTooLargeError,
  toErrorObject,
  ValidationError,
  WeftError,
} from '@weft/core';

/** Turns anything a router route (or Fastify) threw into a {@link WeftError} naming the field. */
export function toWeftError(error: unknown): WeftError {
  if (error instanceof WeftError) return error;
  const fastify = error as Partial<FastifyError> & { validationContext?: string };
  const first = fastify.validation?.[0];
  if (first) {
    const path = first.instancePath
      .split('/')
      .slice(1)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    const extra = first.params['missingProperty'] ?? first.params['additionalProperty'];
    if (typeof extra === 'string') path.push(extra);
    const field = path.length > 0 ? path.join('.') : (fastify.validationContext ?? 'body');
    const what =
      first.keyword === 'required'
        ? 'is required'
        : first.keyword === 'additionalProperties'
          ? 'is not a known field'
          : (first.message ?? 'is invalid');
    return new ValidationError(`${field} ${what}`, { field, constraint: first.keyword });
  }
  switch (fastify.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new PayloadTooLargeError('the request body is over the size limit', {
        limit: 'bodyLimit',
      });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ValidationError('send the body as application/json', {
        field: 'content-type',
        constraint: 'media_type',
      });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
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
      field: 'body',
      constraint: fastify.code ?? 'request',
    });
  }
  return InternalError.from(error);
}

/** Error handler of the router's routes: the §2.10 body with its DESIGN.md §4 status. */
export function sendError(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const weft = toWeftError(error);
  if (weft.httpStatus >= 500 && weft.code === 'INTERNAL_ERROR')
    request.log.error({ err: error }, 'router request failed');
  return reply
    .code(weft.httpStatus)
    .type('application/json')
    .send(JSON.stringify(toErrorObject(weft)));
}
