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
  body_only_signature:
    'the signature covers the body alone; with a timestamp header it must cover <timestamp>.<body>',
  standard_signature_required:
    'a whsec_ (Standard Webhooks) secret accepts only v1,<base64> signatures over <webhook-id>.<webhook-timestamp>.<body>',
  missing_standard_headers:
    'a Standard Webhooks signature needs the webhook-id and webhook-timestamp headers',
  missing_token: 'send Authorization: Bearer <token>',
  bad_token: 'the bearer token is not valid',
  missing_timestamp: 'the request carries no timestamp header',
  malformed_timestamp: 'the timestamp header is not Unix seconds, milliseconds or ISO 8601',
  stale_timestamp: 'the request timestamp is outside the replay window',
};

/** The 401 of a failed signature, token or timestamp check. */
export function unauthorized(reason: string, header?: string): WeftError {
  const message = MESSAGES[reason] ?? reason;
  const missing =
    reason === 'missing_standard_headers' && header ? `the ${header} header is missing: ` : '';
  return new UnauthorizedError(`webhook refused: ${missing}${message}`, {
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

/**
 * The 409 of a signature accepted within the replay window: a sender's delivery id is not signed
 * (except in the Standard Webhooks form), so a captured request replayed with another id, or
 * none, is recognised by the signature it carries.
 */
export function replayedSignature(
  deliveryId: string | undefined,
  executionId: string | undefined,
): WeftError {
  return new ConflictError(
    'webhook refused: this signature was already accepted within the replay window',
    {
      reason: 'replayed_delivery',
      delivery_id: deliveryId ?? null,
      execution_id: executionId ?? null,
    },
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
