import { AuthConfig } from '@weft/core';
import type { FastifyInstance } from 'fastify';
import { discoverSignInEndpoints, type SignInEndpoints } from '@weft/identity';
import type { CompiledOidcOptions } from '@weft/identity';
import type { ConsoleSignIn } from '@weft/identity';

/** Where the identity provider sends the browser back after sign-in. */
export const CONSOLE_CALLBACK_PATH = '/console/callback';

/** After a failed discovery, it is tried again on the next request at most this often, ms. */
const RETRY_MS = 5_000;
/** Discovered endpoints are read again after this long, ms. */
const MAX_AGE_MS = 600_000;

/**
 * The sign-in endpoints of the provider, from its discovery document: kept for ten minutes; a
 * failure is answered again for five seconds before the next attempt.
 */
export class SignInProvider {
  private cached: { at: number; result: Promise<SignInEndpoints> } | undefined;

  constructor(
    readonly oidc: CompiledOidcOptions,
    readonly signIn: ConsoleSignIn,
  ) {}

  endpoints(): Promise<SignInEndpoints> {
    const now = Date.now();
    if (this.cached && now - this.cached.at < MAX_AGE_MS) return this.cached.result;
    const result = discoverSignInEndpoints(
      this.oidc.issuer,
      this.oidc.discoveryUrl,
      this.oidc.timeoutMs,
    );
    const entry = { at: now, result };
    this.cached = entry;
    result.catch(() => {
      // Failures are kept for RETRY_MS only.
      if (this.cached === entry) entry.at = now - MAX_AGE_MS + RETRY_MS;
    });
    return result;
  }

  /**
   * Origins the console's pages may connect to beyond their own: the token endpoint's (the
   * browser exchanges its code there, on the callback page, which the provider's redirect loads
   * afresh). None while the provider cannot be read, nor when it takes longer than `waitMs` to
   * answer: a page is never held up by the provider (API keys still work).
   */
  async connectSources(waitMs = 1000): Promise<string[]> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), waitMs);
    });
    try {
      const endpoints = await Promise.race([this.endpoints(), late]);
      return endpoints ? [endpoints.tokenEndpoint.origin] : [];
    } catch {
      return [];
    } finally {
      clearTimeout(timer);
    }
  }
}

/** `GET /auth/config`, public: what the console's sign-in page needs. */
export function registerAuthConfig(app: FastifyInstance, provider: SignInProvider | undefined) {
  app.get(
    '/auth/config',
    {
      schema: {
        summary:
          'How to sign in: API keys, and the identity provider’s endpoints for the authorization code flow with PKCE when configured (public)',
        tags: ['auth'],
        response: { 200: AuthConfig },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'no-store');
      if (!provider) return { api_keys: true, oidc: null };
      const endpoints = await provider.endpoints();
      return {
        api_keys: true,
        oidc: {
          name: provider.signIn.name,
          issuer: provider.oidc.issuer,
          client_id: provider.signIn.clientId,
          authorization_endpoint: endpoints.authorizationEndpoint.href,
          token_endpoint: endpoints.tokenEndpoint.href,
          scope: provider.signIn.scope,
          redirect_path: CONSOLE_CALLBACK_PATH,
          code_challenge_method: 'S256' as const,
        },
      };
    },
  );
}
