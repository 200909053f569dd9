import { isErrorCode, type ErrorCode } from './codes.js';
import { WeftError } from './weft-error.js';

/** The error object (docs/protocol.md#error-object), as it travels on the wire. */
export interface ErrorObject {
  status: 'error';
  code: ErrorCode;
  message: string;
  details: Record<string, unknown>;
}

/** Options of {@link toErrorObject}. */
export interface ToErrorObjectOptions {
  /**
   * Keep `details.stack_trace` of `INTERNAL_ERROR`. Off for HTTP answers (a 500 never leaks a
   * stack trace); on for local SDK errors and logs.
   */
  includeStack?: boolean;
}

/** Formats any thrown value as an error object (docs/protocol.md#error-object); unknown exceptions become `INTERNAL_ERROR`. */
export function toErrorObject(error: unknown, options: ToErrorObjectOptions = {}): ErrorObject {
  if (error instanceof WeftError) {
    const weft: WeftError = error;
    const details: Record<string, unknown> = { ...weft.details };
    if (weft.code === 'INTERNAL_ERROR' && !options.includeStack) details['stack_trace'] = '';
    return { status: 'error', code: weft.code, message: weft.message, details };
  }
  const cause = error instanceof Error ? error : new Error(String(error));
  return {
    status: 'error',
    code: 'INTERNAL_ERROR',
    message: `internal error: ${cause.message}`,
    details: {
      error_type: cause.name,
      stack_trace: options.includeStack ? (cause.stack ?? '') : '',
    },
  };
}

/** Rebuilds a {@link WeftError} from an error object (docs/protocol.md#error-object) received from elsewhere. */
export function fromErrorObject(value: unknown): WeftError {
  if (typeof value !== 'object' || value === null) {
    return new WeftError('BACKEND_ERROR', 'received an error that is not an error object', {
      backend: 'unknown',
      original_error: String(value),
    });
  }
  const record = value as Record<string, unknown>;
  const message = typeof record['message'] === 'string' ? record['message'] : 'unknown error';
  const details =
    typeof record['details'] === 'object' &&
    record['details'] !== null &&
    !Array.isArray(record['details'])
      ? (record['details'] as Record<string, unknown>)
      : {};
  const code = record['code'];
  if (!isErrorCode(code)) {
    return new WeftError('BACKEND_ERROR', message, {
      ...details,
      backend: typeof details['backend'] === 'string' ? details['backend'] : 'unknown',
      original_error: typeof code === 'string' ? `${code}: ${message}` : message,
    });
  }
  return new WeftError(code, message, details);
}
