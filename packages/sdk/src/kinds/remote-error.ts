import {
  BackendError,
  capErrorObject,
  capText,
  MAX_UPSTREAM_TEXT,
  CanceledError,
  TimeoutError,
  UnavailableError,
  ValidationError,
  type WeftError,
} from '@weft/core';
import type { ActionRun } from './action-run.js';

/**
 * The `WeftError` of a connector service's error answer `{status: "error", message, code,
 * details?}` (docs/protocol.md#action-calls, docs/protocol.md#error-object). The codes (docs/protocol.md#error-codes) a caller can act on keep their code, their
 * details completed where the service left them out: `VALIDATION`, `UNAVAILABLE`,
 * `BACKEND_ERROR`, `TIMEOUT`, `CANCELED`. Anything else (`INTERNAL_ERROR` of the service,
 * HTTP-only codes, unknown codes) is the service failing: `BACKEND_ERROR` with
 * `original_error` `"<code>: <message>"`.
 */
export function remoteError(body: Record<string, unknown>, run: ActionRun): WeftError {
  const backend = run.connector.name;
  // Bounded where they are first copied; the run masks its secrets, then cuts them to 1 KB.
  const message =
    typeof body['message'] === 'string'
      ? capText(body['message'], MAX_UPSTREAM_TEXT)
      : 'unknown error';
  const code = typeof body['code'] === 'string' ? body['code'].slice(0, 100) : 'UNKNOWN';
  const raw = body['details'];
  const details: Record<string, unknown> =
    typeof raw === 'object' && raw !== null && !Array.isArray(raw)
      ? {
          ...capErrorObject({ message, details: raw as Record<string, unknown> }, MAX_UPSTREAM_TEXT)
            .details,
        }
      : {};
  const text = (key: string, fallback: string) =>
    typeof details[key] === 'string' ? details[key] : fallback;
  const integer = (key: string) =>
    typeof details[key] === 'number' ? Math.round(details[key]) : 0;
  const shown = `${backend}: ${message}`;
  switch (code) {
    case 'VALIDATION':
      return new ValidationError(shown, {
        ...details,
        field: text('field', 'input'),
        constraint: text('constraint', 'remote'),
      });
    case 'UNAVAILABLE':
      return new UnavailableError(shown, {
        ...details,
        backend: text('backend', backend),
        suggestion: text('suggestion', `check the ${backend} connector service`),
      });
    case 'BACKEND_ERROR':
      return new BackendError(shown, {
        ...details,
        backend: text('backend', backend),
        original_error: text('original_error', message),
      });
    case 'TIMEOUT':
      return new TimeoutError(shown, {
        ...details,
        timeout_ms: integer('timeout_ms'),
        elapsed_ms: integer('elapsed_ms'),
      });
    case 'CANCELED':
      return new CanceledError(shown, {
        ...details,
        canceled_at: text('canceled_at', new Date().toISOString()),
      });
    default:
      return new BackendError(shown, {
        backend,
        original_error: `${code}: ${message}`,
        remote_code: code,
      });
  }
}
