import { WeftClient } from '@weft/sdk/client';
import type { TokenRefresher } from './refresh.js';

const STORAGE_KEY = 'weft.console.apiKey';
/** The access token of a sign-in with the identity provider. */
const TOKEN_KEY = 'weft.console.token';
/** What renews that access token, when the provider gave a refresh token. */
const REFRESH_KEY = 'weft.console.refresh';

/** The part of the `Storage` interface used here. */
interface KeyValues {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/**
 * The tab's session storage, looked up when used (read through `globalThis` so that tests of
 * {@link TokenRefresher} under Node, which has no such global, can supply one).
 */
function tab(): KeyValues {
  return (globalThis as unknown as { sessionStorage: KeyValues }).sessionStorage;
}

/** How this tab renews its provider token: the refresh token, where and as whom. */
export interface RefreshRecord {
  refresh_token: string;
  token_endpoint: string;
  client_id: string;
  /** When the access token expires, ms since the epoch (unknown: only a 401 renews it). */
  expires_at?: number;
}

/**
 * The signed-in API key or identity-provider token, kept in session storage (gone when the tab
 * closes, never in a URL or a cookie); null when signed out or when storage is unavailable.
 */
export function storedKey(): string | null {
  try {
    return tab().getItem(STORAGE_KEY) ?? tab().getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

/** Keeps the access token of a sign-in with the identity provider. */
export function storeToken(token: string): void {
  tab().setItem(TOKEN_KEY, token);
}

/** The refresh token of this tab's provider sign-in, if it has one. */
export function storedRefresh(): RefreshRecord | undefined {
  try {
    const raw = tab().getItem(REFRESH_KEY);
    const record = raw === null ? undefined : (JSON.parse(raw) as Partial<RefreshRecord>);
    return typeof record?.refresh_token === 'string' &&
      typeof record.token_endpoint === 'string' &&
      typeof record.client_id === 'string'
      ? (record as RefreshRecord)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Keeps (or, with undefined, forgets) what renews the provider token, beside it. */
export function storeRefresh(record: RefreshRecord | undefined): void {
  if (record) tab().setItem(REFRESH_KEY, JSON.stringify(record));
  else tab().removeItem(REFRESH_KEY);
}

export function storeKey(key: string): void {
  tab().setItem(STORAGE_KEY, key);
  tab().removeItem(REFRESH_KEY);
}

export function forgetKey(): void {
  try {
    tab().removeItem(STORAGE_KEY);
    tab().removeItem(TOKEN_KEY);
    tab().removeItem(REFRESH_KEY);
  } catch {
    // Nothing stored.
  }
}

/**
 * A client of this server's public HTTP API that sends `key` as the bearer token; with a
 * `refresher`, the current provider token (renewed on a 401, see {@link TokenRefresher.fetch}).
 */
export function clientFor(key: string, refresher?: TokenRefresher): WeftClient {
  if (!refresher) return new WeftClient({ apiKey: key });
  return new WeftClient({ apiKey: () => storedKey() ?? undefined, fetch: refresher.fetch });
}
