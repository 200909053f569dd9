import type { CompiledWebhook } from './compile-webhook.js';
import { unauthorized } from './refusal.js';
import { isStandardForm, verifyBearer, verifyHmac } from './signature.js';
import { checkTimestamp } from './timestamp.js';

/** What an authenticated webhook request tells replay protection. */
export interface Authenticated {
  /** The request is in the Standard Webhooks form (its id and timestamp are signed). */
  usesStandard: boolean;
  /** The verified digest of a `sha256=<hex>`, hex or base64 signature (their id is not signed). */
  digest: Buffer | undefined;
}

/**
 * Checks a webhook request's timestamps, then its signature or token; throws the 401 of the
 * first that fails. A `whsec_` webhook needs `webhook-id` and `webhook-timestamp` before anything
 * else; the configured timestamp header must be fresh, and so must `webhook-timestamp` whenever
 * the Standard form signs it; with a timestamp header, a non-Standard signature covers
 * `<timestamp>.<body>`.
 */
export function authenticate(
  hook: CompiledWebhook,
  header: (name: string) => string | undefined,
  body: Buffer,
  nowMs: number,
): Authenticated {
  const auth = hook.auth;
  const standardOnly = auth.type === 'hmac' && auth.standard;
  if (standardOnly) {
    for (const name of ['webhook-id', 'webhook-timestamp'] as const) {
      if (!header(name)?.trim()) throw unauthorized('missing_standard_headers', name);
    }
  }
  const usesStandard =
    auth.type === 'hmac' && (standardOnly || isStandardForm(header(auth.header)));
  const window = hook.replayWindowMs;
  if (hook.timestampHeader !== undefined) checkFresh(header, hook.timestampHeader, nowMs, window);
  if (usesStandard && hook.timestampHeader !== 'webhook-timestamp')
    checkFresh(header, 'webhook-timestamp', nowMs, window);
  if (auth.type === 'bearer') {
    const check = verifyBearer(auth.token, header('authorization'));
    if (!check.ok) throw unauthorized(check.reason, 'authorization');
  }
  if (auth.type !== 'hmac') return { usesStandard, digest: undefined };
  const check = verifyHmac(auth.key, body, header(auth.header), {
    id: header('webhook-id'),
    timestamp: header('webhook-timestamp'),
    signedTimestamp: hook.timestampHeader === undefined ? undefined : header(hook.timestampHeader),
    standardOnly,
  });
  if (!check.ok) throw unauthorized(check.reason, auth.header);
  // The Standard form signs its id, which then tells deliveries apart; other ids are not signed.
  return { usesStandard, digest: check.form === 'standard' ? undefined : check.digest };
}

/** Throws the 401 of timestamp header `name` when it is missing, unreadable or stale. */
function checkFresh(
  header: (name: string) => string | undefined,
  name: string,
  nowMs: number,
  windowMs: number,
): void {
  const failure = checkTimestamp(header(name), nowMs, windowMs);
  if (failure) throw unauthorized(failure, name);
}
