import {
  ConflictError,
  ForbiddenError,
  RateLimitedError,
  UnauthorizedError,
  type WeftError,
} from '@weft/core';

/** One refused webhook request, as logged for audit. */
export interface WebhookAuditEntry {
  /** `webhook.refused`. */
  event: 'webhook.refused';
  /** `POST /github`. */
  webhook: string;
  workflow: string;
  status: number;
  /** A machine word: `bad_signature`, `stale_timestamp`, `ip_not_allowed`, `replayed_delivery`, ... */
  reason: string;
  client_ip: string | null;
  delivery_id: string | null;
  at: string;
}

const MESSAGES: Record<string, string> = {
  missing_signature: 'the request carries no signature header',
  malformed_signature:
    'the signature is not in a supported form (sha256=<hex>, hex, base64 or v1,<base64>)',
  bad_signature: 'the signature does not match the body',
  missing_standard_headers:
    'a v1,<base64> signature needs the webhook-id and webhook-timestamp headers',
  missing_token: 'send Authorization: Bearer <token>',
  bad_token: 'the bearer token is not valid',
  missing_timestamp: 'the request carries no timestamp header',
  malformed_timestamp: 'the timestamp header is not Unix seconds, milliseconds or ISO 8601',
  stale_timestamp: 'the request timestamp is outside the replay window',
};

/** The 401 of a failed signature, token or timestamp check. */
export function unauthorized(reason: string, header?: string): WeftError {
  return new UnauthorizedError(`webhook refused: ${MESSAGES[reason] ?? reason}`, {
    reason,
    ...(header ? { header } : {}),
  });
}

/** The 403 of a caller outside the allowlist. */
export function forbidden(address: string | undefined): WeftError {
  return new ForbiddenError('webhook refused: the caller’s address is not in the ipAllowlist', {
    reason: 'ip_not_allowed',
    client_ip: address ?? null,
  });
}

/** The 409 of a delivery id seen within the replay window. */
export function replayed(deliveryId: string, executionId: string | undefined): WeftError {
  return new ConflictError(
    `webhook refused: delivery ${deliveryId} was already received within the replay window`,
    { reason: 'replayed_delivery', delivery_id: deliveryId, execution_id: executionId ?? null },
  );
}

/** The 429 of a request over the rate limit. */
export function rateLimited(retryAfterMs: number): WeftError {
  const retryAfter = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new RateLimitedError(`webhook refused: over its rate limit; retry in ${retryAfter} s`, {
    reason: 'rate_limited',
    retry_after: retryAfter,
  });
}
