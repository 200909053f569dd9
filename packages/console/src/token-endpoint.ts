/** What a token endpoint gave: the access token, and a refresh token and expiry when it gave them. */
export interface TokenGrant {
  accessToken: string;
  /** Present when the provider lets the console renew the access token (`offline_access`). */
  refreshToken?: string;
  /** When the access token expires, ms since the epoch: from `expires_in`, else its `exp`. */
  expiresAt?: number;
}

/** A token request that gave no token: the OAuth `error` (`invalid_grant`...) or why not. */
export class TokenRequestError extends Error {
  constructor(
    message: string,
    /** The provider was not reached (network, CORS, CSP): the grant may still be good. */
    readonly unreachable: boolean,
  ) {
    super(message);
  }
}

/** `fetch` as the token requests use it (the global one by default). */
export type SendFunction = (url: string, init: RequestInit) => Promise<Response>;

/**
 * Posts `form` to the token endpoint (RFC 6749 §3.2) and reads the answer (§5.1). A refusal
 * (§5.2) or an answer without an access token throws a {@link TokenRequestError} naming the
 * provider's `error`; the error never carries a token.
 */
export async function requestToken(
  endpoint: string,
  form: Record<string, string>,
  send: SendFunction = (url, init) => fetch(url, init),
): Promise<TokenGrant> {
  let answer: Response;
  try {
    answer = await send(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    });
  } catch (error) {
    throw new TokenRequestError(
      `cannot reach the token endpoint: ${(error as Error).message}`,
      true,
    );
  }
  const body = (await answer.json().catch(() => ({}))) as {
    access_token?: unknown;
    refresh_token?: unknown;
    expires_in?: unknown;
    error?: unknown;
  };
  if (!answer.ok || typeof body.access_token !== 'string' || body.access_token === '') {
    const why = typeof body.error === 'string' ? body.error : `HTTP ${answer.status}`;
    throw new TokenRequestError(`the identity provider did not give a token: ${why}`, false);
  }
  const expiresAt = expiryOf(body.expires_in, body.access_token);
  return {
    accessToken: body.access_token,
    ...(typeof body.refresh_token === 'string' && body.refresh_token !== ''
      ? { refreshToken: body.refresh_token }
      : {}),
    ...(expiresAt !== undefined ? { expiresAt } : {}),
  };
}

/**
 * When an access token expires: `expires_in` seconds from now, else the `exp` of a JWT (read
 * for timing only, never trusted: the server checks the token), else unknown.
 */
function expiryOf(expiresIn: unknown, token: string): number | undefined {
  const seconds = typeof expiresIn === 'string' ? Number(expiresIn) : expiresIn;
  if (typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0) {
    return Date.now() + seconds * 1000;
  }
  try {
    const part = token.split('.')[1] ?? '';
    const json = atob(part.replace(/-/g, '+').replace(/_/g, '/'));
    const exp = (JSON.parse(json) as { exp?: unknown }).exp;
    return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}
