import { createHmac, randomBytes } from 'node:crypto';

/** Prefix of Standard Webhooks secrets. */
const PREFIX = 'whsec_';

/** A new Standard Webhooks signing secret: `whsec_` and 32 random bytes in base64. */
export function generateSigningSecret(): string {
  return `${PREFIX}${randomBytes(32).toString('base64')}`;
}

/**
 * The Standard Webhooks headers of a message: `webhook-id`, `webhook-timestamp` (seconds) and
 * `webhook-signature` (`v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` keyed with the
 * secret's bytes).
 */
export function signWebhook(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string,
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  const key = Buffer.from(
    secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret,
    'base64',
  );
  const signature = createHmac('sha256', key)
    .update(`${id}.${timestampSeconds}.${body}`)
    .digest('base64');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': `v1,${signature}`,
  };
}
