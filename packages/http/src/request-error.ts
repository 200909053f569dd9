import {
  InternalError,
  NotFoundError,
  PayloadTooLargeError,
  toErrorObject,
  ValidationError,
  WeftError,
} from '@weft/core';

/** One schema validation failure as the HTTP framework (Fastify's ajv) reports it. */
interface SchemaFailure {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

/** The fields of a framework request error (Fastify's `FastifyError`) that weft reads. */
interface RequestErrorLike {
  validation?: SchemaFailure[];
  validationContext?: string;
  code?: string;
  statusCode?: number;
  message?: string;
}

/** How a package's routes describe what they accept. */
export interface RequestErrorOptions {
  /** Media types the routes accept, named when a request sends another one. */
  mediaTypes?: readonly string[];
  /** The largest body the routes take, in bytes, named when a request sends a larger one. */
  bodyLimit?: number;
}

/**
 * Turns anything a route or the HTTP framework threw into a {@link WeftError}: schema failures
 * become `VALIDATION` naming the field (`input.text`) and the keyword, framework body errors get
 * their code (docs/design.md#errors), and anything unknown is an `INTERNAL_ERROR`. Shared by every HTTP package so that
 * the same bad request gets the same answer on every endpoint.
 */
export function errorFromRequest(error: unknown, options: RequestErrorOptions = {}): WeftError {
  if (error instanceof WeftError) return error;
  const framework = (typeof error === 'object' && error !== null ? error : {}) as RequestErrorLike;
  const first = framework.validation?.[0];
  if (first) return schemaError(first, framework.validationContext ?? 'body');
  switch (framework.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return options.bodyLimit === undefined
        ? new PayloadTooLargeError('the request body is over the size limit: send a smaller one', {
            limit: null,
          })
        : new PayloadTooLargeError(
            `the request body is over the limit of ${options.bodyLimit} bytes: send a smaller one`,
            { limit: options.bodyLimit, unit: 'bytes' },
          );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ValidationError(
        `send the body as ${(options.mediaTypes ?? ['application/json']).join(' or ')}`,
        { field: 'content-type', constraint: 'media_type' },
      );
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ValidationError(framework.message ?? 'the body is not valid', {
        field: 'body',
        constraint: 'syntax',
      });
    default:
      // Any other framework error is mapped by its status below.
      break;
  }
  const status = framework.statusCode ?? 500;
  if (status === 404) return new NotFoundError(framework.message ?? 'not found');
  if (status >= 400 && status < 500) {
    return new ValidationError(framework.message ?? 'bad request', {
      field: 'body',
      constraint: framework.code ?? 'request',
    });
  }
  return InternalError.from(error);
}

function schemaError(failure: SchemaFailure, context: string): ValidationError {
  const path = failure.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  const named = failure.params['missingProperty'] ?? failure.params['additionalProperty'];
  if (typeof named === 'string') path.push(named);
  const field = path.length > 0 ? path.join('.') : context;
  const what =
    failure.keyword === 'required'
      ? 'is required'
      : failure.keyword === 'additionalProperties'
        ? 'is not a known field'
        : (failure.message ?? 'is invalid');
  const where = path.length > 0 && context !== 'body' ? `${context} ` : '';
  return new ValidationError(`${where}${field} ${what}`, {
    field,
    constraint: failure.keyword,
  });
}

/** The parts of an HTTP reply that {@link replyWithError} uses (Fastify's `FastifyReply`). */
export interface ErrorReply<R> {
  code(status: number): R & ErrorReply<R>;
  header(name: string, value: string): unknown;
  type(contentType: string): R & ErrorReply<R>;
  send(body: string): R;
}

/**
 * Answers `error` as the error object (docs/protocol.md#error-object) with its status (docs/design.md#errors) (and `Retry-After` on
 * `RATE_LIMITED`, and on `UNAVAILABLE` that names `details.retry_after`); internal errors are logged with their stack, which never goes on the wire.
 */
export function replyWithError<R>(
  error: unknown,
  request: {
    log: { error(details: object, message: string): void };
    /** The route's own options (Fastify's): a 413 names its body limit when `options` does not. */
    routeOptions?: { bodyLimit?: number | undefined };
  },
  reply: ErrorReply<R>,
  options: RequestErrorOptions = {},
): R {
  const bodyLimit = options.bodyLimit ?? request.routeOptions?.bodyLimit;
  const weft = errorFromRequest(
    error,
    bodyLimit === undefined ? options : { ...options, bodyLimit },
  );
  if (weft.httpStatus >= 500 && weft.code === 'INTERNAL_ERROR') {
    request.log.error({ err: error }, 'request failed');
  }
  if (weft.code === 'UNAVAILABLE' && weft.cause !== undefined) {
    // The driver's own words (addresses, server states) stay in the server's log.
    request.log.error({ err: weft.cause, backend: weft.details.backend }, 'backend unavailable');
  }
  if (weft.code === 'RATE_LIMITED' || weft.code === 'UNAVAILABLE') {
    // Both ask the client to come back; a bare 503 would read as "give up".
    const after = weft.details['retry_after'];
    if (weft.code === 'RATE_LIMITED' || typeof after === 'number') {
      reply.header('Retry-After', String(after ?? 1));
    }
  }
  return reply
    .code(weft.httpStatus)
    .type('application/json')
    .send(JSON.stringify(toErrorObject(weft)));
}
