import { SpanStatusCode, type Span } from '@opentelemetry/api';
import { isErrorCode } from '@weft/core';
import { ATTR } from './attributes.js';

/** The weft error code of a failure (`INTERNAL_ERROR` for anything that is not a weft error). */
export function errorCodeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return isErrorCode(code) ? code : 'INTERNAL_ERROR';
}

/**
 * Marks `span` failed with the error's code: status ERROR with the code as its description and
 * `weft.error.code`. The message is not recorded (it may quote what a secret was used for).
 */
export function failSpan(span: Span, code: string): void {
  span.setAttribute(ATTR.errorCode, code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: code });
}
