import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildServer } from './build.js';
import { compileServerOptions, serverOptionsFromEnv } from './config.js';

const fromEnv = (env: Record<string, string>) => compileServerOptions(serverOptionsFromEnv(env));

describe('identity settings of weft server', () => {
  it('reads every WEFT_OIDC_* variable and WEFT_ACCESS_FILE', () => {
    const compiled = fromEnv({
      WEFT_OIDC_ISSUER: 'https://id.example.com/realms/acme',
      WEFT_OIDC_AUDIENCE: 'weft',
      WEFT_OIDC_JWKS_URL: 'https://id.example.com/keys',
      WEFT_OIDC_ROLES_CLAIM: 'realm_access.roles',
      WEFT_OIDC_PERMISSIONS_CLAIM: 'scope',
      WEFT_OIDC_CLOCK_TOLERANCE: '5',
      WEFT_ACCESS_FILE: 'access.yaml',
    }).identity;
    expect(compiled.oidc).toMatchObject({
      issuer: 'https://id.example.com/realms/acme',
      audience: 'weft',
      rolesClaim: 'realm_access.roles',
      permissionsClaim: 'scope',
      clockToleranceSeconds: 5,
    });
    expect(compiled.oidc?.jwksUrl?.href).toBe('https://id.example.com/keys');
    expect(compiled.accessFile).toBe(join(process.cwd(), 'access.yaml'));
  });

  it('accepts API keys only when no issuer is set', () => {
    expect(fromEnv({}).identity.oidc).toBeUndefined();
  });

  it('refuses at start, naming the variable: http issuer, no audience, a stray setting', () => {
    expect(() =>
      fromEnv({ WEFT_OIDC_ISSUER: 'http://id.example.com', WEFT_OIDC_AUDIENCE: 'weft' }),
    ).toThrow(/^WEFT_OIDC_ISSUER must be https \(plain http only on a loopback address/);
    expect(() => fromEnv({ WEFT_OIDC_ISSUER: 'https://id.example.com' })).toThrow(
      /^WEFT_OIDC_AUDIENCE is required with WEFT_OIDC_ISSUER/,
    );
    expect(() => fromEnv({ WEFT_OIDC_AUDIENCE: 'weft' })).toThrow(
      /^WEFT_OIDC_AUDIENCE is set but WEFT_OIDC_ISSUER is not/,
    );
    expect(() =>
      fromEnv({
        WEFT_OIDC_ISSUER: 'https://id.example.com',
        WEFT_OIDC_AUDIENCE: 'weft',
        WEFT_OIDC_JWKS_URL: 'http://10.1.2.3/keys',
      }),
    ).toThrow(/^WEFT_OIDC_JWKS_URL must be https/);
    expect(() =>
      fromEnv({
        WEFT_OIDC_ISSUER: 'https://id.example.com',
        WEFT_OIDC_AUDIENCE: 'weft',
        WEFT_OIDC_CLOCK_TOLERANCE: '-1',
      }),
    ).toThrow(/^WEFT_OIDC_CLOCK_TOLERANCE must be whole seconds/);
  });

  it('reads the owner settings and the auditor roles, refusing both owners or bad names', () => {
    const oidc = { WEFT_OIDC_ISSUER: 'https://id.example.com', WEFT_OIDC_AUDIENCE: 'weft' };
    expect(fromEnv({ ...oidc, WEFT_OIDC_OWNER_CLAIM: 'org_id' }).identity.oidc?.owner).toEqual({
      claim: 'org_id',
    });
    expect(fromEnv({ ...oidc, WEFT_OIDC_OWNER: 'acme' }).identity.oidc?.owner).toEqual({
      fixed: 'acme',
    });
    expect(fromEnv(oidc).identity.oidc?.owner).toEqual({ fixed: 'oidc-users' });
    expect(() =>
      fromEnv({ ...oidc, WEFT_OIDC_OWNER_CLAIM: 'org_id', WEFT_OIDC_OWNER: 'acme' }),
    ).toThrow(/^WEFT_OIDC_OWNER_CLAIM and WEFT_OIDC_OWNER are both set/);
    expect(() => fromEnv({ ...oidc, WEFT_OIDC_OWNER: 'acme corp' })).toThrow(
      /^WEFT_OIDC_OWNER must be an owner name/,
    );
    expect(() => fromEnv({ WEFT_OIDC_OWNER: 'acme' })).toThrow(
      /^WEFT_OIDC_OWNER is set but WEFT_OIDC_ISSUER is not/,
    );
    // API keys' roles count too: auditors need no identity provider.
    expect(
      fromEnv({ WEFT_OIDC_AUDITOR_ROLES: ' audit , sec-ops,audit' }).identity.auditorRoles,
    ).toEqual(['audit', 'sec-ops']);
    expect(fromEnv({}).identity.auditorRoles).toEqual([]);
    expect(() => fromEnv({ WEFT_OIDC_AUDITOR_ROLES: 'audit team' })).toThrow(
      /^WEFT_OIDC_AUDITOR_ROLES must be comma-separated role names/,
    );
  });

  it('does not start with a bad access file', async () => {
    const work = mkdtempSync(join(tmpdir(), 'weft-server-access-'));
    const accessFile = join(work, 'access.yaml');
    writeFileSync(accessFile, 'roles:\n  finance:\n    permissions: payments:approve\n');
    await expect(
      buildServer({ dataDir: join(work, 'data'), identity: { accessFile } }, { logger: false }),
    ).rejects.toThrow(`${accessFile}: roles.finance.permissions must be a list of permissions`);
  });
});
