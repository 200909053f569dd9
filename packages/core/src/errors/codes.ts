/**
 * The error codes weft puts on the wire. The first six are the SDK taxonomy (docs/protocol.md#error-codes); the
 * rest are the HTTP codes docs/design.md#errors adds.
 */
export const ERROR_CODES = [
  'VALIDATION',
  'UNAVAILABLE',
  'BACKEND_ERROR',
  'TIMEOUT',
  'CANCELED',
  'INTERNAL_ERROR',
  'NOT_FOUND',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'RATE_LIMITED',
] as const;

/** One of {@link ERROR_CODES}. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** HTTP status for every code (docs/design.md#errors). */
export const HTTP_STATUS: Readonly<Record<ErrorCode, number>> = {
  VALIDATION: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CANCELED: 409,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  BACKEND_ERROR: 502,
  UNAVAILABLE: 503,
  TIMEOUT: 504,
};

/** True when `value` is one of the known error codes. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}
