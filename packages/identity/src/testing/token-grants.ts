import { createHash, randomBytes } from 'node:crypto';
import type { JWTPayload } from 'jose';

/** An authorization code handed out by `/authorize`, waiting for its exchange at `/token`. */
export interface PendingCode {
  clientId: string;
  redirectUri: string;
  challenge: string;
  /** The `scope` the authorization request asked for. */
  scope: string;
  expiresMs: number;
}

/** A refresh token handed out by `/token`: good for one renewal by the client it was issued to. */
interface IssuedRefresh {
  clientId: string;
  scope: string;
}

/** What the token endpoint needs of the provider. */
export interface TokenIssuer {
  signInClaims: JWTPayload;
  accessTokenLifetimeSeconds: number;
  failTokens: string | undefined;
  sign(claims: JWTPayload): Promise<string>;
}

/** One answer of `/token`: its status and JSON body. */
export interface TokenAnswer {
  status: number;
  body: Record<string, unknown>;
}

/**
 * The grants of the testing provider's `/token`: authorization codes (RFC 6749 §4.1.3, with
 * PKCE) and refresh tokens (§6). A refresh token is issued only when the scope asked for holds
 * `offline_access` (as OpenID Connect Core §11 asks); each is good for one renewal, which issues
 * the next one (rotation). Refusals are the error codes of §5.2.
 */
export class TokenGrants {
  readonly codes = new Map<string, PendingCode>();
  private readonly refreshTokens = new Map<string, IssuedRefresh>();

  constructor(private readonly issuer: TokenIssuer) {}

  /** Forgets every refresh token handed out (as a provider does when a session is revoked). */
  revokeRefreshTokens(): void {
    this.refreshTokens.clear();
  }

  /** Answers one token request. */
  async answer(form: URLSearchParams): Promise<TokenAnswer> {
    const grantType = form.get('grant_type');
    if (grantType === 'refresh_token') return this.refresh(form);
    const code = form.get('code') ?? '';
    const pending = this.codes.get(code);
    // A code is good for one exchange, even a refused one.
    this.codes.delete(code);
    const error = this.issuer.failTokens ?? exchangeError(form, pending);
    if (error !== undefined || !pending) return refusal(error ?? 'invalid_grant');
    return this.issue(pending.clientId, pending.scope);
  }

  private async refresh(form: URLSearchParams): Promise<TokenAnswer> {
    const presented = form.get('refresh_token');
    if (this.issuer.failTokens !== undefined) return refusal(this.issuer.failTokens);
    if (!presented || !form.get('client_id')) return refusal('invalid_request');
    const issued = this.refreshTokens.get(presented);
    // Unknown, used, revoked, or issued to another client (which does not use it up).
    if (!issued || issued.clientId !== form.get('client_id')) return refusal('invalid_grant');
    const asked = form.get('scope');
    const granted = new Set(issued.scope.split(' '));
    if (asked !== null && !asked.split(' ').every((scope) => granted.has(scope))) {
      return refusal('invalid_scope');
    }
    this.refreshTokens.delete(presented);
    return this.issue(issued.clientId, asked ?? issued.scope);
  }

  private async issue(clientId: string, scope: string): Promise<TokenAnswer> {
    const lifetime = this.issuer.accessTokenLifetimeSeconds;
    const nowMs = Date.now();
    // `exp` rounded up: the token is good for at least the `expires_in` the answer says.
    const accessToken = await this.issuer.sign({
      iat: Math.floor(nowMs / 1000),
      exp: Math.ceil(nowMs / 1000) + lifetime,
      ...this.issuer.signInClaims,
    });
    const body: Record<string, unknown> = {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: lifetime,
    };
    if (scope !== '') body['scope'] = scope;
    if (scope.split(' ').includes('offline_access')) {
      const refreshToken = randomBytes(32).toString('base64url');
      this.refreshTokens.set(refreshToken, { clientId, scope });
      body['refresh_token'] = refreshToken;
    }
    return { status: 200, body };
  }
}

function refusal(error: string): TokenAnswer {
  return { status: 400, body: { error } };
}

/** Why a code exchange is refused (an OAuth error code), or undefined when it is good. */
function exchangeError(
  form: URLSearchParams,
  pending: PendingCode | undefined,
): string | undefined {
  if (form.get('grant_type') !== 'authorization_code') return 'unsupported_grant_type';
  if (!pending || pending.expiresMs < Date.now()) return 'invalid_grant';
  if (form.get('client_id') !== pending.clientId) return 'invalid_client';
  if (form.get('redirect_uri') !== pending.redirectUri) return 'invalid_grant';
  const verifier = form.get('code_verifier') ?? '';
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) return 'invalid_grant';
  const hash = createHash('sha256').update(verifier).digest('base64url');
  return hash === pending.challenge ? undefined : 'invalid_grant';
}
