import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  exportJWK,
  generateKeyPair,
  SignJWT,
  type CryptoKey,
  type JWK,
  type JWTPayload,
} from 'jose';
import { TokenGrants, type PendingCode } from './token-grants.js';

/** One signing key of the test provider. */
interface SigningKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

/** Claims over the provider's defaults: a claim set to `undefined` is left out of the token. */
export type ClaimChanges = { [K in keyof JWTPayload]?: JWTPayload[K] | undefined };

/** How {@link TestIdentityProvider.sign} makes a token. */
export interface SignOptions {
  /** Key id to sign with (default: the newest key). */
  kid?: string;
  /** Header fields to set or override (`typ`, `kid`, `alg`). */
  header?: Record<string, unknown>;
  /** Leave `exp` out. */
  noExpiry?: boolean;
}

/**
 * An OpenID Connect provider on loopback for tests: a discovery document and a JWKS served over
 * real HTTP, keys made by jose, rotation (add and remove keys), and an outage switch. It counts
 * the JWKS requests it answers. It also signs in a browser by the authorization code flow with
 * PKCE (S256 only): `/authorize` approves the test user ({@link signInClaims}) at once and
 * redirects back with a code, `/token` exchanges the code once, for the same client and
 * redirect address, against the verifier whose hash the authorization request carried. When the
 * authorization request's `scope` holds `offline_access`, `/token` also issues a refresh token,
 * renewed by `grant_type=refresh_token` once each (rotation; see {@link TokenGrants}).
 */
export class TestIdentityProvider {
  private keys: SigningKey[] = [];
  private server: Server | undefined;
  /** JWKS requests answered (any status). */
  jwksRequests = 0;
  /** Discovery requests answered. */
  discoveryRequests = 0;
  /** `down`: every request gets 503; `hang`: requests never get an answer. */
  mode: 'up' | 'down' | 'hang' = 'up';
  /** What the discovery document says the issuer is (default: the real one). */
  advertisedIssuer: string | undefined;
  /** Bodies to serve instead of the JWKS (hostile endpoints). */
  jwksOverride: string | undefined;
  url = '';
  /** Claims of the access token `/token` issues (`sub` `user-1` and `aud` `weft` by default). */
  signInClaims: JWTPayload = {};
  /** Client ids `/authorize` accepts (default: any). */
  clientIds: string[] | undefined;
  /** Token exchanges answered (any status), and the error codes of the refused ones. */
  tokenRequests = 0;
  tokenErrors: string[] = [];
  /** `/token` refuses every exchange and renewal with this error (`invalid_grant`...), when set. */
  failTokens: string | undefined;
  /** Lifetime of the access tokens `/token` issues, seconds (`expires_in` and `exp`). */
  accessTokenLifetimeSeconds = 3600;
  private readonly grants = new TokenGrants(this);
  private get codes(): Map<string, PendingCode> {
    return this.grants.codes;
  }

  /** Makes every refresh token handed out so far unusable (`invalid_grant`). */
  revokeRefreshTokens(): void {
    this.grants.revokeRefreshTokens();
  }

  /** Starts listening on 127.0.0.1 with one RS256 key (`k1`). */
  async start(): Promise<this> {
    await this.addKey('k1', 'RS256');
    this.server = createServer((request, response) => {
      if (this.mode === 'hang') return;
      if (this.mode === 'down') {
        response.writeHead(503).end('down');
        return;
      }
      const path = (request.url ?? '').split('?')[0];
      if (path === '/authorize' && request.method === 'GET') {
        this.authorize(request, response);
        return;
      }
      if (path === '/token') {
        void this.token(request, response);
        return;
      }
      if (request.url === '/.well-known/openid-configuration') {
        this.discoveryRequests++;
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            issuer: this.advertisedIssuer ?? this.url,
            jwks_uri: `${this.url}/jwks`,
            authorization_endpoint: `${this.url}/authorize`,
            token_endpoint: `${this.url}/token`,
            response_types_supported: ['code'],
            code_challenge_methods_supported: ['S256'],
            grant_types_supported: ['authorization_code', 'refresh_token'],
          }),
        );
        return;
      }
      if (request.url === '/jwks') {
        this.jwksRequests++;
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(this.jwksOverride ?? JSON.stringify({ keys: this.keys.map((k) => k.jwk) }));
        return;
      }
      response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  private authorize(request: IncomingMessage, response: ServerResponse): void {
    authorizeRequest(this, this.codes, request, response);
  }

  /** Answers `/token` (CORS open: a browser on another origin exchanges its code here). */
  private async token(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const cors = {
      'access-control-allow-origin': '*',
      'access-control-allow-headers': 'content-type',
      'access-control-allow-methods': 'POST',
    };
    if (request.method === 'OPTIONS') {
      response.writeHead(204, cors).end();
      return;
    }
    this.tokenRequests++;
    const answer = (status: number, body: object) =>
      response
        .writeHead(status, {
          ...cors,
          'content-type': 'application/json',
          'cache-control': 'no-store',
        })
        .end(JSON.stringify(body));
    let form: URLSearchParams;
    try {
      if (request.method !== 'POST') throw new Error('POST only');
      form = await readForm(request);
    } catch {
      this.tokenErrors.push('invalid_request');
      answer(400, { error: 'invalid_request' });
      return;
    }
    const { status, body } = await this.grants.answer(form);
    if (typeof body['error'] === 'string') this.tokenErrors.push(body['error']);
    answer(status, body);
  }

  /** Stops listening (open connections are dropped). */
  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }

  /** Adds a key to the published set (rotation); the newest signs by default. */
  async addKey(kid: string, alg = 'RS256'): Promise<void> {
    const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
    const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
    this.keys.push({ kid, alg, privateKey, jwk });
  }

  /** Takes a key out of the published set (it can still sign: tokens of a retired key). */
  removeKey(kid: string): void {
    const key = this.keys.find((k) => k.kid === kid);
    this.keys = this.keys.filter((k) => k.kid !== kid);
    if (key) this.retired.push(key);
  }
  private retired: SigningKey[] = [];

  /**
   * A token signed by the provider: `iss` this provider, `aud` `weft`, `sub` `user-1`, an hour
   * of validity, unless `claims` say otherwise (`undefined` removes a claim).
   */
  async sign(claims: ClaimChanges = {}, options: SignOptions = {}): Promise<string> {
    const all = [...this.keys, ...this.retired];
    const key = options.kid ? all.find((k) => k.kid === options.kid) : this.keys.at(-1);
    if (!key) throw new Error(`no key ${options.kid}`);
    const now = Math.floor(Date.now() / 1000);
    const payload: ClaimChanges = {
      iss: this.url,
      aud: 'weft',
      sub: 'user-1',
      iat: now,
      ...(options.noExpiry ? {} : { exp: now + 3600 }),
      ...claims,
    };
    for (const [name, value] of Object.entries(payload))
      if (value === undefined) delete payload[name];
    return new SignJWT(payload as JWTPayload)
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT', ...options.header })
      .sign(key.privateKey);
  }
}

/** Answers `/authorize`: approves the test user and redirects back with a code and the state. */
function authorizeRequest(
  provider: TestIdentityProvider,
  codes: Map<string, PendingCode>,
  request: IncomingMessage,
  response: ServerResponse,
): void {
  const query = new URL(request.url ?? '', provider.url).searchParams;
  const redirectUri = query.get('redirect_uri') ?? '';
  const clientId = query.get('client_id') ?? '';
  const challenge = query.get('code_challenge') ?? '';
  let back: URL;
  try {
    back = new URL(redirectUri);
  } catch {
    response.writeHead(400, { 'content-type': 'text/plain' }).end('bad redirect_uri');
    return;
  }
  if (provider.clientIds && !provider.clientIds.includes(clientId)) {
    response.writeHead(400, { 'content-type': 'text/plain' }).end('unknown client_id');
    return;
  }
  const state = query.get('state');
  if (state !== null) back.searchParams.set('state', state);
  if (
    query.get('response_type') !== 'code' ||
    query.get('code_challenge_method') !== 'S256' ||
    !/^[A-Za-z0-9_-]{43}$/.test(challenge)
  ) {
    back.searchParams.set('error', 'invalid_request');
    back.searchParams.set(
      'error_description',
      'response_type code with an S256 code_challenge is required',
    );
  } else {
    const code = randomBytes(24).toString('base64url');
    const scope = query.get('scope') ?? '';
    codes.set(code, { clientId, redirectUri, challenge, scope, expiresMs: Date.now() + 60_000 });
    back.searchParams.set('code', code);
  }
  response.writeHead(302, { location: back.href, 'cache-control': 'no-store' }).end();
}

async function readForm(request: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > 16_384) throw new Error('body too large');
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** An unsigned token (`alg: none`) with the given claims. */
export function unsignedToken(claims: JWTPayload): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`;
}
