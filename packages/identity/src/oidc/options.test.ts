import { describe, expect, it } from 'vitest';
import { compileOidcOptions, isLoopbackUrl } from './options.js';

const fields = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return { message: (error as Error).message, details: (error as { details?: unknown }).details };
  }
  throw new Error('expected an error');
};

describe('compileOidcOptions', () => {
  it('fills the defaults and derives the discovery address', () => {
    const options = compileOidcOptions({
      issuer: 'https://id.example.com/realms/acme/',
      audience: 'weft',
    });
    expect(options.discoveryUrl.href).toBe(
      'https://id.example.com/realms/acme/.well-known/openid-configuration',
    );
    expect(options.rolesClaim).toBe('roles');
    expect(options.permissionsClaim).toBe('permissions');
    expect(options.algorithms).not.toContain('HS256');
    expect(options.algorithms).not.toContain('none');
  });

  it('accepts plain http on loopback only', () => {
    expect(compileOidcOptions({ issuer: 'http://127.0.0.1:5556/dex', audience: 'a' }).issuer).toBe(
      'http://127.0.0.1:5556/dex',
    );
    expect(compileOidcOptions({ issuer: 'http://[::1]:80', audience: 'a' }).issuer).toBe(
      'http://[::1]:80',
    );
    expect(compileOidcOptions({ issuer: 'http://localhost:8080', audience: 'a' }).issuer).toBe(
      'http://localhost:8080',
    );
    const refused = fields(() =>
      compileOidcOptions(
        { issuer: 'http://id.example.com', audience: 'a' },
        {
          issuer: 'WEFT_OIDC_ISSUER',
          audience: 'A',
          jwksUrl: 'J',
          rolesClaim: 'R',
          ownerClaim: 'O',
          owner: 'F',
          permissionsClaim: 'P',
        },
      ),
    );
    expect(refused.message).toMatch(/^WEFT_OIDC_ISSUER must be https/);
    expect(refused.details).toEqual({ field: 'WEFT_OIDC_ISSUER', constraint: 'https' });
    expect(
      fields(() => compileOidcOptions({ issuer: 'http://10.0.0.1', audience: 'a' })).message,
    ).toMatch(/must be https/);
    expect(
      fields(() => compileOidcOptions({ issuer: 'not a url', audience: 'a' })).message,
    ).toMatch(/must be an https URL/);
    expect(
      fields(() =>
        compileOidcOptions({ issuer: 'https://a', audience: 'a', jwksUrl: 'http://b/jwks' }),
      ).message,
    ).toMatch(/^jwksUrl must be https/);
  });

  it('needs an audience and well-formed claim paths', () => {
    expect(
      fields(() => compileOidcOptions({ issuer: 'https://a', audience: ' ' })).message,
    ).toMatch(/^audience is required/);
    expect(
      fields(() =>
        compileOidcOptions({
          issuer: 'https://a',
          audience: 'w',
          rolesClaim: 'realm_access..roles',
        }),
      ).message,
    ).toMatch(/^rolesClaim must be a claim name or a dotted path/);
  });

  it('knows loopback addresses', () => {
    expect(isLoopbackUrl(new URL('http://127.8.9.10'))).toBe(true);
    expect(isLoopbackUrl(new URL('http://[::ffff:127.0.0.1]'))).toBe(true);
    expect(isLoopbackUrl(new URL('http://127.0.0.1.evil.com'))).toBe(false);
    expect(isLoopbackUrl(new URL('http://192.168.1.1'))).toBe(false);
  });

  it('takes the owner from a claim or one fixed owner, never both, and checks the fixed one', () => {
    const base = { issuer: 'https://id.example.com', audience: 'weft' };
    expect(compileOidcOptions(base).owner).toEqual({ fixed: 'oidc-users' });
    expect(compileOidcOptions({ ...base, owner: ' acme ' }).owner).toEqual({ fixed: 'acme' });
    expect(compileOidcOptions({ ...base, ownerClaim: 'org.id' }).owner).toEqual({
      claim: 'org.id',
    });
    const labels = {
      issuer: 'I',
      audience: 'A',
      jwksUrl: 'J',
      rolesClaim: 'R',
      permissionsClaim: 'P',
      ownerClaim: 'WEFT_OIDC_OWNER_CLAIM',
      owner: 'WEFT_OIDC_OWNER',
    };
    const both = fields(() =>
      compileOidcOptions({ ...base, ownerClaim: 'org', owner: 'acme' }, labels),
    );
    expect(both.message).toContain('WEFT_OIDC_OWNER_CLAIM and WEFT_OIDC_OWNER are both set');
    expect(both.details).toEqual({ field: 'WEFT_OIDC_OWNER_CLAIM', constraint: 'exclusive' });
    expect(fields(() => compileOidcOptions({ ...base, owner: 'oidc:ada' }, labels))).toEqual({
      message: expect.stringContaining('WEFT_OIDC_OWNER must be an owner name') as unknown,
      details: { field: 'WEFT_OIDC_OWNER', constraint: 'pattern' },
    });
    expect(
      fields(() => compileOidcOptions({ ...base, ownerClaim: 'a..b' }, labels)).details,
    ).toEqual({ field: 'WEFT_OIDC_OWNER_CLAIM', constraint: 'format' });
  });
});
