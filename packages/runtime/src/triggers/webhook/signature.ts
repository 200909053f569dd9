import { createHmac, timingSafeEqual } from 'node:crypto';

/** The form a valid HMAC signature was sent in. */
export type SignatureForm = 'github' | 'hex' | 'base64' | 'standard';

/** Why a signature or token was refused (logged for audit, sent in `details.reason`). */
export type AuthFailure =
  | 'missing_signature'
  | 'malformed_signature'
  | 'bad_signature'
  | 'missing_token'
  | 'bad_token'
  | 'missing_standard_headers'
  | 'body_only_signature'
  | 'standard_signature_required';

/** Outcome of a check. */
export type AuthCheck<T> = { ok: true; form: T } | { ok: false; reason: AuthFailure };

/** A verified HMAC: its form and the digest it matched (what replay protection remembers). */
export type HmacCheck =
  { ok: true; form: SignatureForm; digest: Buffer } | { ok: false; reason: AuthFailure };

/** Headers of the Standard Webhooks form (https://www.standardwebhooks.com). */
export interface StandardHeaders {
  /** `webhook-id`. */
  id: string | undefined;
  /** `webhook-timestamp` (Unix seconds). */
  timestamp: string | undefined;
}

/** What a signature must cover besides the body, beyond the Standard Webhooks headers. */
export interface SignedParts extends StandardHeaders {
  /**
   * The value of the webhook's `timestampHeader`, when it has one: the `sha256=<hex>`, hex and
   * base64 forms then sign `<timestamp>.<body>` (as Stripe signs `t.body`), so that a captured
   * request cannot be replayed under a fresh timestamp.
   */
  signedTimestamp?: string | undefined;
  /** A `whsec_` secret: only the Standard Webhooks `v1,<base64>` form is accepted. */
  standardOnly?: boolean;
}

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;
const BASE64_SHA256 = /^[A-Za-z0-9+/]{43}=?$|^[A-Za-z0-9_-]{43}$/;

/**
 * The HMAC key of a secret: a Standard Webhooks `whsec_` secret is the base64 text after the
 * prefix, decoded; any other secret is its UTF-8 bytes. Throws on an empty or blank secret and an
 * empty key: an HMAC with a key anyone can guess proves nothing.
 */
export function hmacKey(secret: string): Buffer {
  if (secret.trim() === '') throw new Error('the webhook secret is empty or blank');
  const key = secret.startsWith('whsec_')
    ? Buffer.from(secret.slice('whsec_'.length), 'base64')
    : Buffer.from(secret, 'utf8');
  if (key.length === 0) throw new Error('the webhook secret is empty');
  return key;
}

/** Compares two byte strings in constant time; different lengths are unequal (checked first). */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  return timingSafeEqual(a, b);
}

/** True when a signature header holds the Standard Webhooks `v1,<base64>` form. */
export function isStandardForm(header: string | undefined): boolean {
  return /(^|\s)v1,/.test(header ?? '');
}

/**
 * Verifies an `hmac-sha256` signature. Accepted forms of `header`: `sha256=<hex>` (GitHub),
 * plain hex and base64, over the raw body bytes, or over `<timestamp>.<body>` when
 * `parts.signedTimestamp` is given (a body-only signature is then refused as
 * `body_only_signature`); and the Standard Webhooks list `v1,<base64> v1,<base64>` whose
 * signatures cover `<webhook-id>.<webhook-timestamp>.<body>`, the only form accepted with
 * `parts.standardOnly`. A decoded signature of the wrong length is refused before any
 * comparison; digests are compared in constant time.
 */
export function verifyHmac(
  key: Uint8Array,
  body: Uint8Array,
  header: string | undefined,
  parts: SignedParts = { id: undefined, timestamp: undefined },
): HmacCheck {
  const value = header?.trim() ?? '';
  if (value === '') return { ok: false, reason: 'missing_signature' };
  if (isStandardForm(value)) return verifyStandard(key, body, value, parts);
  if (parts.standardOnly) return { ok: false, reason: 'standard_signature_required' };
  let form: SignatureForm;
  let given: Buffer;
  if (value.startsWith('sha256=')) {
    const hex = value.slice('sha256='.length);
    if (!HEX_SHA256.test(hex)) return { ok: false, reason: 'malformed_signature' };
    form = 'github';
    given = Buffer.from(hex, 'hex');
  } else if (HEX_SHA256.test(value)) {
    form = 'hex';
    given = Buffer.from(value, 'hex');
  } else if (BASE64_SHA256.test(value)) {
    form = 'base64';
    given = Buffer.from(value, value.includes('-') || value.includes('_') ? 'base64url' : 'base64');
  } else {
    return { ok: false, reason: 'malformed_signature' };
  }
  const signed = parts.signedTimestamp;
  const expected = createHmac('sha256', key);
  if (signed !== undefined) expected.update(`${signed}.`);
  const digest = expected.update(body).digest();
  if (constantTimeEqual(given, digest)) return { ok: true, form, digest };
  // Say why a sender that still signs the body alone is refused: it is a migration, not an attack.
  if (signed !== undefined) {
    const bodyOnly = createHmac('sha256', key).update(body).digest();
    if (constantTimeEqual(given, bodyOnly)) return { ok: false, reason: 'body_only_signature' };
  }
  return { ok: false, reason: 'bad_signature' };
}

function verifyStandard(
  key: Uint8Array,
  body: Uint8Array,
  value: string,
  { id, timestamp }: StandardHeaders,
): HmacCheck {
  if (!id || !timestamp) return { ok: false, reason: 'missing_standard_headers' };
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest();
  let wellFormed = false;
  for (const entry of value.split(' ')) {
    const [version, signature] = entry.split(',', 2);
    if (version !== 'v1' || signature === undefined || !BASE64_SHA256.test(signature)) continue;
    wellFormed = true;
    if (constantTimeEqual(Buffer.from(signature, 'base64'), expected)) {
      return { ok: true, form: 'standard', digest: expected };
    }
  }
  return { ok: false, reason: wellFormed ? 'bad_signature' : 'malformed_signature' };
}

/** Verifies `Authorization: Bearer <token>` against the expected token, in constant time. */
export function verifyBearer(
  expected: Uint8Array,
  authorization: string | undefined,
): AuthCheck<'bearer'> {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '');
  if (!match) return { ok: false, reason: 'missing_token' };
  const given = Buffer.from(match[1]!, 'utf8');
  return constantTimeEqual(given, expected)
    ? { ok: true, form: 'bearer' }
    : { ok: false, reason: 'bad_token' };
}
