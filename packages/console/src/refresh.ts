import { storedKey, storedRefresh, storeRefresh, storeToken } from './session.js';
import { requestToken, TokenRequestError, type SendFunction } from './token-endpoint.js';

/** A token is renewed this long before it expires at most (a quarter of what is left if less). */
const EARLY_MS = 60_000;
/** Renewals are at least this far apart, whatever lifetime the provider gives. */
const MIN_DELAY_MS = 1_000;
/** The longest `setTimeout` delay browsers keep (about 24 days). */
const MAX_DELAY_MS = 2_147_483_647;

/** How one renewal ended: the new access token, or why not (`final`: the grant is dead). */
type Renewal = { token: string } | { failure: string; final: boolean };

/**
 * Keeps a provider sign-in alive with its refresh token (RFC 6749 §6): the access token is
 * renewed shortly before it expires, and a 401 of the weft API renews it once and sends the
 * request again once. Concurrent callers share one renewal. When the provider refuses
 * (`invalid_grant`...) or cannot be reached when a request needs a new token, the tab's tokens
 * are forgotten and `ended` is called with a message for the sign-in page. Tokens stay in session
 * storage beside the access token; nothing here logs them.
 */
export class TokenRefresher {
  private inFlight: Promise<Renewal> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private over = false;

  constructor(
    private readonly ended: (message: string) => void,
    private readonly send: SendFunction = (url, init) => fetch(url, init),
  ) {}

  /** Starts renewing the access token shortly before it expires. */
  start(): void {
    this.over = false;
    this.schedule();
  }

  /** Stops renewing (signed out, or the page is gone); a renewal on its way is not kept. */
  stop(): void {
    this.over = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Renews the access token; callers at the same time share one token request. */
  refresh(): Promise<Renewal> {
    this.inFlight ??= this.renew().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  /**
   * `fetch` for the weft API: a 401 answer to a request sent with the current token renews it
   * (once, shared) and sends the request again once with the new one; a request sent with a
   * token that was renewed meanwhile is sent again at once. A renewal that fails, or a renewed
   * token the server refuses too, ends the sign-in.
   */
  readonly fetch = async (url: string, init: RequestInit): Promise<Response> => {
    const answer = await this.send(url, init);
    if (answer.status !== 401 || this.over || !storedRefresh()) return answer;
    const headers = new Headers(init.headers);
    const sent = headers.get('authorization');
    let token = storedKey();
    if (token === null || sent === `Bearer ${token}`) {
      const renewal = await this.refresh();
      if ('failure' in renewal) {
        this.end(renewal.failure);
        return answer;
      }
      token = renewal.token;
    }
    if (this.over) return answer;
    void answer.body?.cancel().catch(() => {});
    headers.set('authorization', `Bearer ${token}`);
    const again = await this.send(url, { ...init, headers });
    if (again.status === 401 && !this.over) {
      this.end('the server does not accept the renewed token of the identity provider');
    }
    return again;
  };

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const expiresAt = storedRefresh()?.expires_at;
    if (this.over || expiresAt === undefined) return;
    const left = expiresAt - Date.now();
    const delay = Math.min(
      MAX_DELAY_MS,
      Math.max(MIN_DELAY_MS, left - Math.min(EARLY_MS, left / 4)),
    );
    this.timer = setTimeout(() => {
      void this.refresh().then((renewal) => {
        // A provider out of reach may be back by the next request, whose 401 tries again.
        if ('failure' in renewal && renewal.final) this.end(renewal.failure);
      });
    }, delay);
  }

  private async renew(): Promise<Renewal> {
    const record = storedRefresh();
    if (!record) return { failure: 'no refresh token', final: true };
    try {
      const grant = await requestToken(
        record.token_endpoint,
        {
          grant_type: 'refresh_token',
          refresh_token: record.refresh_token,
          client_id: record.client_id,
        },
        this.send,
      );
      if (this.over) return { failure: 'signed out', final: true };
      storeToken(grant.accessToken);
      storeRefresh({
        token_endpoint: record.token_endpoint,
        client_id: record.client_id,
        // A provider that does not rotate keeps the refresh token as it was (RFC 6749 §6).
        refresh_token: grant.refreshToken ?? record.refresh_token,
        ...(grant.expiresAt !== undefined ? { expires_at: grant.expiresAt } : {}),
      });
      this.schedule();
      return { token: grant.accessToken };
    } catch (error) {
      const unreachable = error instanceof TokenRequestError && error.unreachable;
      return { failure: (error as Error).message, final: !unreachable };
    }
  }

  /** Ends the sign-in once: the caller shows `message` on the sign-in page. */
  private end(failure: string): void {
    if (this.over) return;
    this.stop();
    this.ended(`your sign-in could not be renewed (${failure}); sign in again`);
  }
}
