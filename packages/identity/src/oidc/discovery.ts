import { UnavailableError } from '@weft/core';
import { readLimited } from './limited-fetch.js';
import { secureUrl } from './options.js';

/** Largest discovery document read, bytes. */
const MAX_DISCOVERY_BYTES = 256 * 1024;

/**
 * Reads the identity provider's discovery document (`<issuer>/.well-known/openid-configuration`):
 * its fields, once its `issuer` is the configured issuer exactly. Any failure is `UNAVAILABLE`.
 */
async function readDiscovery(
  issuer: string,
  discoveryUrl: URL,
  timeoutMs: number,
): Promise<Record<string, unknown>> {
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
  return fields;
}

/** An address the discovery document gives: https (http only on loopback), else `UNAVAILABLE`. */
function discoveredUrl(fields: Record<string, unknown>, name: string, where: URL): URL {
  if (typeof fields[name] !== 'string') {
    throw unavailable(`the discovery document ${where.href} has no ${name}`);
  }
  try {
    return secureUrl(fields[name], name);
  } catch (error) {
    throw unavailable(`the discovery document ${where.href}: ${reason(error)}`);
  }
}

/**
 * The `jwks_uri` of the identity provider's discovery document. The document's `issuer` must be
 * the configured issuer exactly, and the JWKS address https (http only on loopback). Any failure
 * is `UNAVAILABLE`: tokens cannot be checked, so none is accepted.
 */
export async function discoverJwksUrl(
  issuer: string,
  discoveryUrl: URL,
  timeoutMs: number,
): Promise<URL> {
  const fields = await readDiscovery(issuer, discoveryUrl, timeoutMs);
  if (typeof fields['jwks_uri'] !== 'string') {
    throw unavailable(
      `the discovery document ${discoveryUrl.href} has no jwks_uri: set WEFT_OIDC_JWKS_URL`,
    );
  }
  return discoveredUrl(fields, 'jwks_uri', discoveryUrl);
}

/** Where a browser signs in with the authorization code flow (RFC 6749, RFC 7636). */
export interface SignInEndpoints {
  authorizationEndpoint: URL;
  tokenEndpoint: URL;
}

/**
 * The `authorization_endpoint` and `token_endpoint` of the identity provider's discovery
 * document (same checks as {@link discoverJwksUrl}); a missing or insecure one is `UNAVAILABLE`.
 */
export async function discoverSignInEndpoints(
  issuer: string,
  discoveryUrl: URL,
  timeoutMs: number,
): Promise<SignInEndpoints> {
  const fields = await readDiscovery(issuer, discoveryUrl, timeoutMs);
  return {
    authorizationEndpoint: discoveredUrl(fields, 'authorization_endpoint', discoveryUrl),
    tokenEndpoint: discoveredUrl(fields, 'token_endpoint', discoveryUrl),
  };
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
