import { HTTP_STATUS, type ErrorCode } from './codes.js';

/** The `details` each code carries (docs/protocol.md#error-codes); HTTP-only codes carry free-form details. */
export interface ErrorDetailsByCode {
  VALIDATION: { field: string; constraint: string; [extra: string]: unknown };
  UNAVAILABLE: { backend: string; suggestion: string; [extra: string]: unknown };
  BACKEND_ERROR: { backend: string; original_error: string; [extra: string]: unknown };
  TIMEOUT: { timeout_ms: number; elapsed_ms: number; [extra: string]: unknown };
  CANCELED: { canceled_at: string; [extra: string]: unknown };
  INTERNAL_ERROR: { error_type: string; stack_trace: string; [extra: string]: unknown };
  NOT_FOUND: Record<string, unknown>;
  UNAUTHORIZED: Record<string, unknown>;
  FORBIDDEN: Record<string, unknown>;
  CONFLICT: Record<string, unknown>;
  PAYLOAD_TOO_LARGE: Record<string, unknown>;
  RATE_LIMITED: Record<string, unknown>;
}

/**
 * Base of every error weft raises on purpose. `code` and `details` are what goes on the wire
 * (docs/protocol.md#error-object); the message says what happened and what to do.
 */
export class WeftError<C extends ErrorCode = ErrorCode> extends Error {
  override readonly name: string = 'WeftError';
  readonly code: C;
  readonly details: ErrorDetailsByCode[C];

  constructor(code: C, message: string, details: ErrorDetailsByCode[C], options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.details = details;
  }

  /** The HTTP status this error is answered with. */
  get httpStatus(): number {
    return HTTP_STATUS[this.code];
  }
}

/** Input validation failed (`VALIDATION`). */
export class ValidationError extends WeftError<'VALIDATION'> {
  override readonly name: string = 'ValidationError';
  constructor(message: string, details: ErrorDetailsByCode['VALIDATION'], options?: ErrorOptions) {
    super('VALIDATION', message, details, options);
  }
}

/** A backend or connector is not available (`UNAVAILABLE`). */
export class UnavailableError extends WeftError<'UNAVAILABLE'> {
  override readonly name: string = 'UnavailableError';
  constructor(message: string, details: ErrorDetailsByCode['UNAVAILABLE'], options?: ErrorOptions) {
    super('UNAVAILABLE', message, details, options);
  }
}

/** A backend's execution failed (`BACKEND_ERROR`). */
export class BackendError extends WeftError<'BACKEND_ERROR'> {
  override readonly name: string = 'BackendError';
  constructor(
    message: string,
    details: ErrorDetailsByCode['BACKEND_ERROR'],
    options?: ErrorOptions,
  ) {
    super('BACKEND_ERROR', message, details, options);
  }
}

/** An execution exceeded its deadline (`TIMEOUT`). */
export class TimeoutError extends WeftError<'TIMEOUT'> {
  override readonly name: string = 'TimeoutError';
  constructor(message: string, details: ErrorDetailsByCode['TIMEOUT'], options?: ErrorOptions) {
    super('TIMEOUT', message, details, options);
  }
}

/** An execution was canceled by a user (`CANCELED`). */
export class CanceledError extends WeftError<'CANCELED'> {
  override readonly name: string = 'CanceledError';
  constructor(message: string, details: ErrorDetailsByCode['CANCELED'], options?: ErrorOptions) {
    super('CANCELED', message, details, options);
  }
}

/** A bug in weft itself (`INTERNAL_ERROR`). */
export class InternalError extends WeftError<'INTERNAL_ERROR'> {
  override readonly name: string = 'InternalError';
  constructor(
    message: string,
    details: ErrorDetailsByCode['INTERNAL_ERROR'],
    options?: ErrorOptions,
  ) {
    super('INTERNAL_ERROR', message, details, options);
  }

  /** Wraps an unexpected exception, keeping its type and stack. */
  static from(cause: unknown): InternalError {
    const error = cause instanceof Error ? cause : new Error(String(cause));
    return new InternalError(
      `internal error: ${error.message}`,
      { error_type: error.name, stack_trace: error.stack ?? '' },
      { cause },
    );
  }
}

/** The resource does not exist, or is not visible to the caller (`NOT_FOUND`). */
export class NotFoundError extends WeftError<'NOT_FOUND'> {
  override readonly name: string = 'NotFoundError';
  constructor(message: string, details: Record<string, unknown> = {}, options?: ErrorOptions) {
    super('NOT_FOUND', message, details, options);
  }
}

/** Credentials are missing or invalid (`UNAUTHORIZED`). */
export class UnauthorizedError extends WeftError<'UNAUTHORIZED'> {
  override readonly name: string = 'UnauthorizedError';
  constructor(message: string, details: Record<string, unknown> = {}, options?: ErrorOptions) {
    super('UNAUTHORIZED', message, details, options);
  }
}

/** The caller is known but not allowed (`FORBIDDEN`). */
export class ForbiddenError extends WeftError<'FORBIDDEN'> {
  override readonly name: string = 'ForbiddenError';
  constructor(message: string, details: Record<string, unknown> = {}, options?: ErrorOptions) {
    super('FORBIDDEN', message, details, options);
  }
}

/** The request conflicts with the current state (`CONFLICT`). */
export class ConflictError extends WeftError<'CONFLICT'> {
  override readonly name: string = 'ConflictError';
  constructor(message: string, details: Record<string, unknown> = {}, options?: ErrorOptions) {
    super('CONFLICT', message, details, options);
  }
}

/** The request body or file is over a size limit (`PAYLOAD_TOO_LARGE`). */
export class PayloadTooLargeError extends WeftError<'PAYLOAD_TOO_LARGE'> {
  override readonly name: string = 'PayloadTooLargeError';
  constructor(message: string, details: Record<string, unknown> = {}, options?: ErrorOptions) {
    super('PAYLOAD_TOO_LARGE', message, details, options);
  }
}

/** Too many requests (`RATE_LIMITED`). */
export class RateLimitedError extends WeftError<'RATE_LIMITED'> {
  override readonly name: string = 'RateLimitedError';
  constructor(message: string, details: Record<string, unknown> = {}, options?: ErrorOptions) {
    super('RATE_LIMITED', message, details, options);
  }
}
