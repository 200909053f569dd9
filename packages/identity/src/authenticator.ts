import {
  EMPTY_ACCESS_POLICY,
  expandPrincipal,
  UnauthorizedError,
  type AccessPolicy,
  type ApiKeyRecord,
  type Principal,
} from '@weft/core';
import { apiKeyPrincipal, isApiKeyToken, verifyApiKey, type ApiKeyStore } from './api-keys.js';
import { bearerToken } from './bearer.js';

/** Checks tokens of an external identity provider (the OIDC verifier, or a test double). */
export interface TokenVerifier {
  verify(token: string): Promise<Principal>;
}

/** What an {@link Authenticator} accepts. */
export interface AuthenticatorOptions {
  /** Where API keys are kept. */
  keys: ApiKeyStore;
  /** Verifies identity-provider tokens; none: only API keys are accepted. */
  tokens?: TokenVerifier;
  /** Permissions by role; default: none. Replace it with {@link Authenticator.setAccessPolicy}. */
  accessPolicy?: AccessPolicy;
}

/** Resolves an `Authorization` header to its principal; rejects with `UNAUTHORIZED`. */
export type Authenticate = (authorization: string | undefined) => Promise<Principal>;

/** A JWT in compact form: starts with a base64url JSON object (`{"` → `eyJ`), two dots. */
function looksLikeJwt(token: string): boolean {
  return token.startsWith('eyJ') && token.split('.', 4).length === 3;
}

/**
 * The platform's one way from a bearer credential to a {@link Principal}: a `weft_` API key is
 * checked against the key store, a JWT against the identity provider (when one is configured);
 * the access policy then adds the permissions of the principal's roles. The expanded principal
 * of a key is remembered per stored record and policy, so a request pays for no expansion.
 */
export class Authenticator {
  private policy: AccessPolicy;
  private readonly expanded = new WeakMap<object, { policy: AccessPolicy; principal: Principal }>();

  constructor(private readonly options: AuthenticatorOptions) {
    this.policy = options.accessPolicy ?? EMPTY_ACCESS_POLICY;
  }

  /** The access policy in force. */
  get accessPolicy(): AccessPolicy {
    return this.policy;
  }

  /** Replaces the access policy (the access file changed); later requests see the new one. */
  setAccessPolicy(policy: AccessPolicy): void {
    this.policy = policy;
  }

  /** Whether identity-provider tokens are accepted. */
  get acceptsTokens(): boolean {
    return this.options.tokens !== undefined;
  }

  /** {@link Authenticate}, bound: pass it around as a function. */
  readonly authenticate: Authenticate = async (authorization) => {
    const token = bearerToken(authorization);
    if (isApiKeyToken(token)) {
      const record = await verifyApiKey(this.options.keys, token);
      return this.expand(record, () => apiKeyPrincipal(record));
    }
    if (looksLikeJwt(token)) {
      if (!this.options.tokens) {
        throw new UnauthorizedError(
          'this server accepts weft API keys only: identity-provider tokens need WEFT_OIDC_ISSUER and WEFT_OIDC_AUDIENCE set',
          { reason: 'invalid' },
        );
      }
      const principal = await this.options.tokens.verify(token);
      return this.expand(principal, () => principal);
    }
    throw new UnauthorizedError(
      `the credential is neither a weft API key nor a signed token${this.options.tokens ? '' : ' (this server accepts weft API keys only)'}`,
      { reason: 'invalid' },
    );
  };

  /** The principal with its roles' permissions, remembered per `source` (a record, a principal). */
  private expand(source: ApiKeyRecord | Principal, make: () => Principal): Principal {
    const known = this.expanded.get(source);
    if (known && known.policy === this.policy) return known.principal;
    const principal = expandPrincipal(make(), this.policy);
    this.expanded.set(source, { policy: this.policy, principal });
    return principal;
  }
}
