import {
  createRemoteJWKSet,
  customFetch,
  errors,
  jwtVerify,
  type JWTPayload,
  type JWTHeaderParameters,
  type RemoteJWKSet,
} from 'jose';
import { oidcKeyId, type Principal } from '@weft/core';
import { ownerClaim, permissionsClaim, rolesClaim, textClaim } from './claims.js';
import { discoverJwksUrl } from './discovery.js';
import { limitedFetch } from './limited-fetch.js';
import type { CompiledOidcOptions } from './options.js';
import { KeySetUnreachable, KidRefused, refused, tokenError } from './token-errors.js';
import { VerifiedTokens } from './verified-tokens.js';

/** Largest JWKS document read, bytes. */
const MAX_JWKS_BYTES = 1024 * 1024;
/** Three base64url parts: a compact JWS. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
/** `typ` values of tokens meant for weft: absent, a JWT, or an RFC 9068 access token. */
const ACCEPTED_TYPES = new Set(['jwt', 'at+jwt', 'application/jwt', 'application/at+jwt']);

/**
 * Verifies bearer tokens of an external OpenID Connect provider with jose: the key set comes
 * from the provider (discovery or a fixed address), is cached, and is fetched again when a token
 * names an unknown `kid` (at most once per cooldown) or when it is older than its maximum age.
 * Only asymmetric algorithms, the configured issuer and audience, `exp` and `sub` required,
 * clock tolerance on times. A key set that cannot be read refuses every token with `UNAVAILABLE`
 * (503): never an allow.
 */
export class OidcVerifier {
  private keySet: RemoteJWKSet | undefined;
  private discovering: Promise<RemoteJWKSet> | undefined;
  private discoveryFailure: { atMs: number; error: unknown } | undefined;
  private readonly verified: VerifiedTokens;
  /** Key sets fetched so far: a token verified under an earlier one is checked again. */
  private generation = 0;
  private readonly getKey: (
    header: JWTHeaderParameters,
    token: unknown,
  ) => ReturnType<RemoteJWKSet>;

  constructor(readonly options: CompiledOidcOptions) {
    this.verified = new VerifiedTokens(options.verifiedCacheSize);
    this.getKey = async (header, token) => {
      const kid = header.kid as unknown;
      if (
        kid !== undefined &&
        (typeof kid !== 'string' || kid.length > 256 || /\p{Cc}/u.test(kid))
      ) {
        throw new KidRefused('kid');
      }
      const keys = this.keySet!;
      try {
        return await keys(header, token as never);
      } catch (error) {
        if (isFetchFailure(error)) throw new KeySetUnreachable(describe(error), { cause: error });
        throw error;
      }
    };
  }

  /** Where the keys come from: the configured address, or the discovered one once known. */
  get jwksUrl(): string {
    return this.options.jwksUrl?.href ?? this.discoveredUrl ?? this.options.discoveryUrl.href;
  }
  private discoveredUrl: string | undefined;

  /**
   * The principal of a token: subject `sub`, credential id `oidc:<sub>` (the person), owner from
   * the owner claim or the fixed owner (the workspace), roles and permissions from the configured
   * claims. Throws `UNAUTHORIZED` (see `tokenError` for the reasons) or `UNAVAILABLE`.
   */
  async verify(token: string): Promise<Principal> {
    if (!COMPACT_JWS.test(token))
      throw refused('the bearer token is not a well-formed signed JWT', 'malformed');
    const keySet = this.keySet ?? (await this.resolveKeySet());
    const now = Date.now();
    const generation = this.generation;
    const known = keySet.fresh ? this.verified.get(token, now, generation) : undefined;
    if (known) return known;
    let payload: JWTPayload;
    let header: JWTHeaderParameters;
    try {
      ({ payload, protectedHeader: header } = await jwtVerify(token, this.getKey, {
        issuer: this.options.issuer,
        audience: this.options.audience,
        algorithms: this.options.algorithms,
        clockTolerance: this.options.clockToleranceSeconds,
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (error) {
      throw tokenError(error, this.jwksUrl);
    }
    if (header.typ !== undefined && !ACCEPTED_TYPES.has(String(header.typ).toLowerCase())) {
      throw refused(
        `a token of type ${JSON.stringify(header.typ)} is not an access token`,
        'bad_type',
      );
    }
    const principal = this.principalOf(payload);
    const validUntil = (payload.exp! + this.options.clockToleranceSeconds) * 1000;
    // Under the generation seen before the lookup: a fetch meanwhile makes the entry stale.
    this.verified.set(token, principal, validUntil, generation);
    return principal;
  }

  private principalOf(payload: JWTPayload): Principal {
    const subject = textClaim(payload, 'sub');
    if (subject === undefined) {
      throw refused(
        'the token sub claim must be a string of 1 to 255 printable characters',
        'bad_claim',
        'sub',
      );
    }
    const source = this.options.owner;
    const owner = 'claim' in source ? ownerClaim(payload, source.claim) : source.fixed;
    return {
      kind: 'oidc',
      subject,
      owner,
      // The person, not the workspace: idempotency keys, usage and callback secrets stay theirs.
      keyId: oidcKeyId(subject),
      name: textClaim(payload, 'preferred_username') ?? textClaim(payload, 'email') ?? subject,
      admin: false,
      roles: rolesClaim(payload, this.options.rolesClaim),
      permissions: permissionsClaim(payload, this.options.permissionsClaim),
    };
  }

  /** The remote key set, discovering its address first when none is configured. */
  private async resolveKeySet(): Promise<RemoteJWKSet> {
    if (this.keySet) return this.keySet;
    if (this.options.jwksUrl) return (this.keySet = this.remote(this.options.jwksUrl));
    const failure = this.discoveryFailure;
    if (failure && Date.now() - failure.atMs < this.options.discoveryRetryMs) throw failure.error;
    this.discovering ??= discoverJwksUrl(
      this.options.issuer,
      this.options.discoveryUrl,
      this.options.timeoutMs,
    )
      .then((url) => {
        this.discoveryFailure = undefined;
        this.discoveredUrl = url.href;
        return (this.keySet = this.remote(url));
      })
      .catch((error: unknown) => {
        this.discoveryFailure = { atMs: Date.now(), error };
        throw error;
      })
      .finally(() => {
        this.discovering = undefined;
      });
    return this.discovering;
  }

  private remote(url: URL): RemoteJWKSet {
    return createRemoteJWKSet(url, {
      cooldownDuration: this.options.cooldownMs,
      cacheMaxAge: this.options.cacheMaxAgeMs,
      timeoutDuration: this.options.timeoutMs,
      [customFetch]: limitedFetch(MAX_JWKS_BYTES, () => {
        this.generation++;
      }),
    });
  }
}

/**
 * Whether a key lookup failed for want of the key set (network, timeout, not 200, not JSON, not
 * a key set) rather than because of the token (no key, several keys, an unsupported alg).
 */
function isFetchFailure(error: unknown): boolean {
  if (!(error instanceof errors.JOSEError)) return true;
  return (
    error instanceof errors.JWKSTimeout ||
    error instanceof errors.JWKSInvalid ||
    error.code === errors.JOSEError.code
  );
}

function describe(error: unknown): string {
  if (error instanceof errors.JWKSTimeout) return 'it did not answer in time';
  const cause = (error as { cause?: { code?: string } }).cause?.code;
  const message = error instanceof Error ? error.message : String(error);
  return cause ? `${message} (${cause})` : message;
}
