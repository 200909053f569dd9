import {
  fromErrorObject,
  parseRetryAfter,
  WeftError,
  type ErrorCode,
  type ErrorDetailsByCode,
} from '@weft/core';
import type { ResponseHeaders } from './transport.js';

/** A non-2xx answer of the server: its status, headers and body parsed as JSON (if any). */
export interface ErrorAnswer {
  status: number;
  headers: ResponseHeaders;
  json: unknown;
}

/**
 * An error answer of the weft server: the error object (docs/protocol.md#error-object) it sent
 * (`{status:"error", code, message, details}`) decoded into a {@link WeftError} with its code,
 * plus the HTTP status it came with. An answer without an error object (a proxy's 502 page, say)
 * is `BACKEND_ERROR` naming the status.
 */
export class ApiError<C extends ErrorCode = ErrorCode> extends WeftError<C> {
  override readonly name: string = 'ApiError';
  /** The HTTP status of the answer. */
  readonly status: number;
  /** Seconds the server asks to wait before trying again (`Retry-After`, with `RATE_LIMITED`). */
  readonly retryAfterSeconds: number | undefined;
  /** Whether the body was the server's own error object (not a status alone). */
  readonly fromServer: boolean;

  constructor(
    code: C,
    message: string,
    details: ErrorDetailsByCode[C],
    answer: { status: number; retryAfterSeconds?: number; fromServer?: boolean },
    options?: ErrorOptions,
  ) {
    super(code, message, details, options);
    this.status = answer.status;
    this.retryAfterSeconds = answer.retryAfterSeconds;
    this.fromServer = answer.fromServer ?? true;
  }

  /**
   * Decodes an error answer; `what` (e.g. `GET /plugins/x`) names the request in the message of
   * an answer that carries no error object.
   */
  static fromAnswer(answer: ErrorAnswer, what: string): ApiError {
    const retryAfterSeconds = retryAfterOf(answer.headers['retry-after']);
    const extra = retryAfterSeconds !== undefined ? { retryAfterSeconds } : {};
    const body = answer.json as { status?: unknown } | null | undefined;
    if (typeof body === 'object' && body !== null && body.status === 'error') {
      const decoded = fromErrorObject(body);
      return new ApiError(decoded.code, decoded.message, decoded.details, {
        status: answer.status,
        ...extra,
      });
    }
    return new ApiError(
      'BACKEND_ERROR',
      `${what}: the server answered ${answer.status}`,
      { backend: 'cloud', original_error: `HTTP ${answer.status}` },
      { status: answer.status, fromServer: false, ...extra },
    );
  }
}

/** `Retry-After` in whole seconds (an HTTP date's wait rounded up): delay seconds or an HTTP date. */
function retryAfterOf(header: string | string[] | undefined): number | undefined {
  const ms = parseRetryAfter(header);
  return ms === undefined ? undefined : Math.ceil(ms / 1000);
}
