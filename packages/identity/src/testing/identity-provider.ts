import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  exportJWK,
  generateKeyPair,
  SignJWT,
  type CryptoKey,
  type JWK,
  type JWTPayload,
} from 'jose';

/** One signing key of the test provider. */
interface SigningKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

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
 * the JWKS requests it answers.
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

  /** Starts listening on 127.0.0.1 with one RS256 key (`k1`). */
  async start(): Promise<this> {
    await this.addKey('k1', 'RS256');
    this.server = createServer((request, response) => {
      if (this.mode === 'hang') return;
      if (this.mode === 'down') {
        response.writeHead(503).end('down');
        return;
      }
      if (request.url === '/.well-known/openid-configuration') {
        this.discoveryRequests++;
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            issuer: this.advertisedIssuer ?? this.url,
            jwks_uri: `${this.url}/jwks`,
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
  async sign(claims: JWTPayload = {}, options: SignOptions = {}): Promise<string> {
    const all = [...this.keys, ...this.retired];
    const key = options.kid ? all.find((k) => k.kid === options.kid) : this.keys.at(-1);
    if (!key) throw new Error(`no key ${options.kid}`);
    const now = Math.floor(Date.now() / 1000);
    const payload: JWTPayload = {
      iss: this.url,
      aud: 'weft',
      sub: 'user-1',
      iat: now,
      ...(options.noExpiry ? {} : { exp: now + 3600 }),
      ...claims,
    };
    for (const [name, value] of Object.entries(payload))
      if (value === undefined) delete payload[name];
    return new SignJWT(payload)
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT', ...options.header } as never)
      .sign(key.privateKey);
  }
}

/** An unsigned token (`alg: none`) with the given claims. */
export function unsignedToken(claims: JWTPayload): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`;
}
