import ipaddr from 'ipaddr.js';
import { DEFAULT_OIDC_OWNER, isOwnerName, ValidationError } from '@weft/core';

/** Signature algorithms a token may use: asymmetric only (never `none`, never HMAC). */
export const OIDC_ALGORITHMS: readonly string[] = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

/** How `weft server` checks the tokens of an external identity provider. */
export interface OidcOptions {
  /** The `iss` every token must carry, exactly; https unless on a loopback address. */
  issuer: string;
  /** The `aud` every token must carry (one of its audiences). */
  audience: string;
  /** JWKS address; default: `jwks_uri` of `<issuer>/.well-known/openid-configuration`. */
  jwksUrl?: string;
  /** Claim of the user's roles; a dotted path (`realm_access.roles`) reaches inside. Default `roles`. */
  rolesClaim?: string;
  /** Claim of the user's permissions (list or space-separated string). Default `permissions`. */
  permissionsClaim?: string;
  /**
   * Claim naming the user's workspace (owner), a dotted path as `rolesClaim`: a token without it
   * is refused. Exclusive with `owner`.
   */
  ownerClaim?: string;
  /** One owner for every user of the issuer. Exclusive with `ownerClaim`. */
  owner?: string;
  /** Leeway for `exp`/`nbf`/`iat`, seconds. Default 30. */
  clockToleranceSeconds?: number;
  /** Accepted algorithms, a subset of {@link OIDC_ALGORITHMS}. Default: all of them. */
  algorithms?: readonly string[];
  /** Least time between two JWKS fetches caused by an unknown `kid`, ms. Default 30,000. */
  cooldownMs?: number;
  /** Keys older than this are fetched again before use, ms. Default 600,000 (10 minutes). */
  cacheMaxAgeMs?: number;
  /** Timeout of one discovery or JWKS request, ms. Default 5,000. */
  timeoutMs?: number;
  /** After a failed discovery, requests fail at once (503) for this long, ms. Default 5,000. */
  discoveryRetryMs?: number;
  /** Verified tokens remembered until they expire (0: none). Default 4,096. */
  verifiedCacheSize?: number;
}

/** {@link OidcOptions} checked, with defaults filled in. */
export interface CompiledOidcOptions {
  issuer: string;
  audience: string;
  jwksUrl: URL | undefined;
  /** `<issuer>/.well-known/openid-configuration`. */
  discoveryUrl: URL;
  rolesClaim: string;
  permissionsClaim: string;
  /**
   * Where a token's owner comes from: a claim, or one fixed owner (the configured one, else
   * `DEFAULT_OIDC_OWNER`).
   */
  owner: { claim: string } | { fixed: string };
  clockToleranceSeconds: number;
  algorithms: string[];
  cooldownMs: number;
  cacheMaxAgeMs: number;
  timeoutMs: number;
  discoveryRetryMs: number;
  verifiedCacheSize: number;
}

/** What the settings are called where they come from (environment variables in the server). */
export interface OidcOptionLabels {
  issuer: string;
  audience: string;
  jwksUrl: string;
  rolesClaim: string;
  permissionsClaim: string;
  ownerClaim: string;
  owner: string;
}

const OPTION_LABELS: OidcOptionLabels = {
  issuer: 'issuer',
  audience: 'audience',
  jwksUrl: 'jwksUrl',
  rolesClaim: 'rolesClaim',
  permissionsClaim: 'permissionsClaim',
  ownerClaim: 'ownerClaim',
  owner: 'owner',
};

/**
 * Checks {@link OidcOptions} and fills defaults; throws `VALIDATION` naming the setting (by
 * `labels`) for an issuer or JWKS address that is not https outside loopback, a missing audience,
 * a bad claim path or an unknown algorithm.
 */
export function compileOidcOptions(
  options: OidcOptions,
  labels: OidcOptionLabels = OPTION_LABELS,
): CompiledOidcOptions {
  const issuerUrl = secureUrl(options.issuer, labels.issuer);
  if (issuerUrl.search !== '' || issuerUrl.hash !== '') {
    throw invalid(labels.issuer, 'must not have a query or fragment', 'format');
  }
  const audience = options.audience?.trim() ?? '';
  if (audience === '') {
    throw invalid(
      labels.audience,
      `is required with ${labels.issuer}: the aud tokens for weft carry`,
      'required',
    );
  }
  const algorithms = [...(options.algorithms ?? OIDC_ALGORITHMS)];
  const unknown = algorithms.find((alg) => !OIDC_ALGORITHMS.includes(alg));
  if (unknown !== undefined || algorithms.length === 0) {
    throw invalid('algorithms', `must be some of ${OIDC_ALGORITHMS.join(', ')}`, 'enum');
  }
  return {
    issuer: options.issuer,
    audience,
    jwksUrl: options.jwksUrl ? secureUrl(options.jwksUrl, labels.jwksUrl) : undefined,
    discoveryUrl: new URL(`${options.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`),
    rolesClaim: claimPath(options.rolesClaim, 'roles', labels.rolesClaim),
    permissionsClaim: claimPath(options.permissionsClaim, 'permissions', labels.permissionsClaim),
    owner: ownerSource(options, labels),
    clockToleranceSeconds: options.clockToleranceSeconds ?? 30,
    algorithms,
    cooldownMs: options.cooldownMs ?? 30_000,
    cacheMaxAgeMs: options.cacheMaxAgeMs ?? 600_000,
    timeoutMs: options.timeoutMs ?? 5_000,
    discoveryRetryMs: options.discoveryRetryMs ?? 5_000,
    verifiedCacheSize: options.verifiedCacheSize ?? 4096,
  };
}

/** True when the URL's host is `localhost` or a loopback address (127.0.0.0/8, ::1). */
export function isLoopbackUrl(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost') return true;
  if (!ipaddr.isValid(host)) return false;
  const address = ipaddr.process(host);
  return address.range() === 'loopback';
}

/** Parses an issuer or JWKS address: https, or http on a loopback address (tests, dev). */
export function secureUrl(text: string | undefined, label: string): URL {
  let url: URL;
  try {
    url = new URL(text ?? '');
  } catch {
    throw invalid(label, `must be an https URL, not ${JSON.stringify(text ?? '')}`, 'format');
  }
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && isLoopbackUrl(url)) return url;
  throw invalid(
    label,
    `must be https (plain http only on a loopback address such as 127.0.0.1), not ${url.protocol}//${url.host}`,
    'https',
  );
}

/**
 * Where tokens' owners come from: both settings at once is refused (which one should win is a
 * guess), a fixed owner must be a valid owner name, neither gives {@link DEFAULT_OIDC_OWNER}.
 */
function ownerSource(options: OidcOptions, labels: OidcOptionLabels): CompiledOidcOptions['owner'] {
  const claim = options.ownerClaim?.trim() || undefined;
  const fixed = options.owner?.trim() || undefined;
  if (claim !== undefined && fixed !== undefined) {
    throw invalid(
      labels.ownerClaim,
      `and ${labels.owner} are both set: set one (the claim naming each user's workspace, or one owner for every user), not both`,
      'exclusive',
    );
  }
  if (claim !== undefined) return { claim: claimPath(claim, claim, labels.ownerClaim) };
  if (fixed !== undefined && !isOwnerName(fixed)) {
    throw invalid(
      labels.owner,
      `must be an owner name (a letter or digit, then letters, digits and _ . -, at most 128 characters), not ${JSON.stringify(fixed)}`,
      'pattern',
    );
  }
  return { fixed: fixed ?? DEFAULT_OIDC_OWNER };
}

function claimPath(value: string | undefined, fallback: string, label: string): string {
  const path = value?.trim() || fallback;
  if (path.length > 256 || path.split('.').some((part) => part === '')) {
    throw invalid(
      label,
      `must be a claim name or a dotted path such as realm_access.roles, not ${JSON.stringify(path)}`,
      'format',
    );
  }
  return path;
}

function invalid(field: string, message: string, constraint: string): ValidationError {
  return new ValidationError(`${field} ${message}`, { field, constraint });
}
