import { UnavailableError } from '@weft/core';
import { readLimited } from './limited-fetch.js';
import { secureUrl } from './options.js';

/** Largest discovery document read, bytes. */
const MAX_DISCOVERY_BYTES = 256 * 1024;

/**
 * Reads the identity provider's discovery document (`<issuer>/.well-known/openid-configuration`)
 * and returns its `jwks_uri`. The document's `issuer` must be the configured issuer exactly, and
 * the JWKS address https (http only on loopback). Any failure is `UNAVAILABLE`: tokens cannot be
 * checked, so none is accepted.
 */
export async function discoverJwksUrl(
  issuer: string,
  discoveryUrl: URL,
  timeoutMs: number,
): Promise<URL> {
  const where = discoveryUrl.href;
  let document: unknown;
  try {
    const response = await fetch(discoveryUrl, {
      headers: { accept: 'application/json' },
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new Error(`it answered HTTP ${response.status}`);
    }
    document = JSON.parse(Buffer.from(await readLimited(response, MAX_DISCOVERY_BYTES)).toString());
  } catch (error) {
    throw unavailable(
      `cannot read the identity provider's discovery document ${where}: ${reason(error)}`,
    );
  }
  const fields = (typeof document === 'object' && document !== null ? document : {}) as Record<
    string,
    unknown
  >;
  if (fields['issuer'] !== issuer) {
    throw unavailable(
      `the discovery document ${where} names issuer ${JSON.stringify(fields['issuer'])}, not ${JSON.stringify(issuer)}: set WEFT_OIDC_ISSUER to the provider's issuer exactly`,
    );
  }
  if (typeof fields['jwks_uri'] !== 'string') {
    throw unavailable(`the discovery document ${where} has no jwks_uri: set WEFT_OIDC_JWKS_URL`);
  }
  try {
    return secureUrl(fields['jwks_uri'], 'jwks_uri');
  } catch (error) {
    throw unavailable(`the discovery document ${where}: ${reason(error)}`);
  }
}

function reason(error: unknown): string {
  const cause = (error as { cause?: { code?: string } }).cause?.code;
  const message = error instanceof Error ? error.message : String(error);
  return cause ? `${message} (${cause})` : message;
}

/** The `UNAVAILABLE` error of an identity provider that cannot be reached or read. */
export function unavailable(message: string, cause?: unknown): UnavailableError {
  return new UnavailableError(
    message,
    {
      backend: 'identity provider',
      suggestion:
        'tokens are refused until the identity provider answers again; weft API keys still work',
    },
    cause === undefined ? undefined : { cause },
  );
}
