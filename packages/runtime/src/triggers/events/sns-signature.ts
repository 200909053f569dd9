import { createVerify } from 'node:crypto';

/** An SNS HTTP(S) message (the JSON body SNS posts to a subscribed endpoint). */
export interface SnsMessage {
  Type: 'Notification' | 'SubscriptionConfirmation' | 'UnsubscribeConfirmation';
  MessageId: string;
  TopicArn: string;
  Message: string;
  Timestamp: string;
  SignatureVersion: '1' | '2';
  Signature: string;
  SigningCertURL: string;
  Subject?: string;
  Token?: string;
  SubscribeURL?: string;
}

/** Why an SNS message was refused. */
export type SnsFailure =
  | 'malformed_message'
  | 'untrusted_certificate_url'
  | 'unsupported_signature_version'
  | 'bad_signature'
  | 'stale_message';

const SNS_HOST = /^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/;

/** True for an `https://sns.<region>.amazonaws.com/...` URL (certificates, subscribe links). */
export function isSnsUrl(url: string, suffix = ''): boolean {
  try {
    const parsed = new URL(url);
    return (
      parsed.protocol === 'https:' &&
      SNS_HOST.test(parsed.hostname) &&
      parsed.port === '' &&
      parsed.username === '' &&
      parsed.pathname.endsWith(suffix)
    );
  } catch {
    return false;
  }
}

/** Checks the shape of a posted SNS message; undefined when it is not one. */
export function parseSnsMessage(body: unknown): SnsMessage | undefined {
  if (body === null || typeof body !== 'object') return undefined;
  const m = body as Record<string, unknown>;
  const strings = [
    'Type',
    'MessageId',
    'TopicArn',
    'Message',
    'Timestamp',
    'SignatureVersion',
    'Signature',
    'SigningCertURL',
  ];
  if (!strings.every((k) => typeof m[k] === 'string')) return undefined;
  if (
    !['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation'].includes(
      m['Type'] as string,
    )
  )
    return undefined;
  if (
    m['Type'] !== 'Notification' &&
    (typeof m['Token'] !== 'string' || typeof m['SubscribeURL'] !== 'string')
  ) {
    return undefined;
  }
  return m as unknown as SnsMessage;
}

/**
 * The text SNS signs: `Key\nvalue\n` for the fields of the message type, in SNS's order
 * (Notification: Message, MessageId, Subject if present, Timestamp, TopicArn, Type;
 * confirmations: Message, MessageId, SubscribeURL, Timestamp, Token, TopicArn, Type).
 */
export function snsStringToSign(m: SnsMessage): string {
  const keys =
    m.Type === 'Notification'
      ? [
          'Message',
          'MessageId',
          ...(m.Subject !== undefined ? ['Subject'] : []),
          'Timestamp',
          'TopicArn',
          'Type',
        ]
      : ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
  return keys.map((k) => `${k}\n${(m as unknown as Record<string, string>)[k]}\n`).join('');
}

/**
 * Verifies an SNS message: its certificate URL is an https SNS host (unless `trustAnyCertUrl`,
 * for tests), its `Timestamp` is at most `maxAgeMs` old, and its signature verifies with the
 * certificate: SHA1withRSA for SignatureVersion 1, SHA256withRSA for 2.
 */
export async function verifySnsMessage(
  m: SnsMessage,
  fetchCertificate: (url: string) => Promise<string>,
  nowMs: number,
  { maxAgeMs = 3_600_000, trustAnyCertUrl = false } = {},
): Promise<SnsFailure | undefined> {
  if (!trustAnyCertUrl && !isSnsUrl(m.SigningCertURL, '.pem')) return 'untrusted_certificate_url';
  if (m.SignatureVersion !== '1' && m.SignatureVersion !== '2')
    return 'unsupported_signature_version';
  const sentAt = Date.parse(m.Timestamp);
  if (Number.isNaN(sentAt) || Math.abs(nowMs - sentAt) > maxAgeMs) return 'stale_message';
  const certificate = await fetchCertificate(m.SigningCertURL);
  const verifier = createVerify(m.SignatureVersion === '1' ? 'RSA-SHA1' : 'RSA-SHA256');
  verifier.update(snsStringToSign(m), 'utf8');
  try {
    return verifier.verify(certificate, m.Signature, 'base64') ? undefined : 'bad_signature';
  } catch {
    return 'bad_signature';
  }
}

/** Fetches SNS signing certificates over HTTPS (5 s timeout), caching each URL. */
export function cachingCertificateFetcher(): (url: string) => Promise<string> {
  const cache = new Map<string, Promise<string>>();
  return (url) => {
    let found = cache.get(url);
    if (!found) {
      found = fetch(url, { signal: AbortSignal.timeout(5000) }).then(async (response) => {
        if (!response.ok) throw new Error(`certificate ${url} answered ${response.status}`);
        return response.text();
      });
      found.catch(() => cache.delete(url));
      cache.set(url, found);
    }
    return found;
  };
}
