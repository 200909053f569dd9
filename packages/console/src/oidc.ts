import type { AuthConfig } from '@weft/core';
import { requestToken, type TokenGrant } from './token-endpoint.js';

/** The identity provider's part of `GET /auth/config`. */
export type OidcConfig = NonNullable<AuthConfig['oidc']>;

/** What a sign-in in progress keeps in session storage until the provider sends the browser back. */
interface Pending {
  state: string;
  verifier: string;
  token_endpoint: string;
  client_id: string;
  redirect_uri: string;
}

const PENDING_KEY = 'weft.console.oidc';

/** A sign-in with the provider: its tokens, and where and as whom to renew them. */
export interface ProviderSignIn extends TokenGrant {
  tokenEndpoint: string;
  clientId: string;
}

/** A sign-in that failed: shown as `SIGN_IN_FAILED` with why. */
export class SignInError extends Error {
  readonly code = 'SIGN_IN_FAILED';
}

/** How this server lets a browser sign in (`GET /auth/config`, public). */
export async function loadAuthConfig(signal: AbortSignal): Promise<AuthConfig> {
  const answer = await fetch('/auth/config', { signal, headers: { accept: 'application/json' } });
  const body = (await answer.json()) as AuthConfig & { code?: string; message?: string };
  if (!answer.ok) throw body;
  return body;
}

function base64url(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function randomText(bytes: number): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/**
 * Starts the authorization code flow with PKCE (RFC 7636, S256): a fresh verifier and state kept
 * in session storage, then the browser goes to the provider, which sends it back to
 * `/console/callback`.
 */
export async function beginSignIn(config: OidcConfig): Promise<void> {
  const verifier = randomText(32);
  const state = randomText(16);
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  const redirectUri = `${location.origin}${config.redirect_path}`;
  const pending: Pending = {
    state,
    verifier,
    token_endpoint: config.token_endpoint,
    client_id: config.client_id,
    redirect_uri: redirectUri,
  };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  const target = new URL(config.authorization_endpoint);
  target.searchParams.set('response_type', 'code');
  target.searchParams.set('client_id', config.client_id);
  target.searchParams.set('redirect_uri', redirectUri);
  target.searchParams.set('scope', config.scope);
  target.searchParams.set('state', state);
  target.searchParams.set('code_challenge', base64url(new Uint8Array(digest)));
  target.searchParams.set('code_challenge_method', 'S256');
  location.assign(target.href);
}

/**
 * Ends a sign-in on the callback page: the state must be the one this tab sent, the code is
 * exchanged (once: the pending sign-in is forgotten first) at the token endpoint. Resolves to
 * the tokens; anything else is a {@link SignInError} and signs nobody in.
 */
export async function completeSignIn(url: URL): Promise<ProviderSignIn> {
  const raw = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  const query = url.searchParams;
  const refused = query.get('error');
  if (refused !== null) {
    const why = query.get('error_description');
    throw new SignInError(
      `the identity provider refused the sign-in: ${refused}${why ? ` (${why})` : ''}`,
    );
  }
  let pending: Pending | undefined;
  try {
    pending = raw === null ? undefined : (JSON.parse(raw) as Pending);
  } catch {
    pending = undefined;
  }
  if (!pending) {
    throw new SignInError('no sign-in was started in this tab: start again from the sign-in page');
  }
  const code = query.get('code');
  if (query.get('state') !== pending.state || !code) {
    throw new SignInError(
      'the answer of the identity provider does not match the sign-in this tab started (state): start again',
    );
  }
  try {
    const grant = await requestToken(pending.token_endpoint, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: pending.redirect_uri,
      client_id: pending.client_id,
      code_verifier: pending.verifier,
    });
    return { ...grant, tokenEndpoint: pending.token_endpoint, clientId: pending.client_id };
  } catch (error) {
    throw new SignInError((error as Error).message);
  }
}
