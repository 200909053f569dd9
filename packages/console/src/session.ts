import { WeftClient } from '@weft/sdk/client';

const STORAGE_KEY = 'weft.console.apiKey';
/** The access token of a sign-in with the identity provider. */
const TOKEN_KEY = 'weft.console.token';

/**
 * The signed-in API key or identity-provider token, kept in session storage (gone when the tab
 * closes, never in a URL or a cookie); null when signed out or when storage is unavailable.
 */
export function storedKey(): string | null {
  try {
    return sessionStorage.getItem(STORAGE_KEY) ?? sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

/** Keeps the access token of a sign-in with the identity provider. */
export function storeToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
}

export function storeKey(key: string): void {
  sessionStorage.setItem(STORAGE_KEY, key);
}

export function forgetKey(): void {
  try {
    sessionStorage.removeItem(STORAGE_KEY);
    sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // Nothing stored.
  }
}

/** A client of this server's public HTTP API that sends `key` as the bearer token. */
export function clientFor(key: string): WeftClient {
  return new WeftClient({ apiKey: key });
}
