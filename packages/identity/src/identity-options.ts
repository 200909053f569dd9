import { resolve } from 'node:path';
import { isKeyRole, ValidationError } from '@weft/core';
import { compileOidcOptions, type CompiledOidcOptions, type OidcOptions } from './oidc/options.js';

/** Identity-provider tokens and access management of `weft server`. */
export interface IdentityServerOptions {
  /** Accept tokens of this OpenID Connect provider (`WEFT_OIDC_*`); default: API keys only. */
  oidc?: OidcOptions;
  /**
   * Client id of the console's public client at the provider (`WEFT_OIDC_CLIENT_ID`): with it the
   * console offers sign-in with the provider (authorization code + PKCE). Needs `oidc`.
   */
  oidcClientId?: string;
  /** Name of the provider on the console's sign-in button (`WEFT_OIDC_NAME`); default its host. */
  oidcName?: string;
  /** Scopes the console asks for (`WEFT_OIDC_SCOPE`, space-separated). Default `openid`. */
  oidcScope?: string;
  /** YAML file granting permissions by role (`WEFT_ACCESS_FILE`), reloaded when it changes. */
  accessFile?: string;
  /** How often the access file is checked for a change, ms. Default 1000. */
  accessFilePollMs?: number;
  /**
   * Roles whose holders read their own workspace's audit log (`WEFT_OIDC_AUDITOR_ROLES`), from a
   * token or an API key alike. Default: none (admin keys only).
   */
  auditorRoles?: readonly string[];
}

/** {@link IdentityServerOptions} checked, with defaults filled in. */
export interface CompiledIdentityOptions {
  oidc: CompiledOidcOptions | undefined;
  /** The console's sign-in with the provider; undefined without a client id. */
  signIn: ConsoleSignIn | undefined;
  /** Absolute path. */
  accessFile: string | undefined;
  accessFilePollMs: number;
  auditorRoles: readonly string[];
}

/** How the console signs in with the identity provider. */
export interface ConsoleSignIn {
  clientId: string;
  name: string;
  scope: string;
}

/** The environment variable of each OIDC setting, named in errors. */
const LABELS = {
  issuer: 'WEFT_OIDC_ISSUER',
  audience: 'WEFT_OIDC_AUDIENCE',
  jwksUrl: 'WEFT_OIDC_JWKS_URL',
  rolesClaim: 'WEFT_OIDC_ROLES_CLAIM',
  permissionsClaim: 'WEFT_OIDC_PERMISSIONS_CLAIM',
  ownerClaim: 'WEFT_OIDC_OWNER_CLAIM',
  owner: 'WEFT_OIDC_OWNER',
};

/**
 * Checks the identity settings once at start: an issuer that is not https outside loopback, an
 * issuer without audience, a bad claim path are `VALIDATION` errors naming the variable.
 */
export function compileIdentityOptions(
  options: IdentityServerOptions = {},
): CompiledIdentityOptions {
  const oidc = options.oidc ? compileOidcOptions(options.oidc, LABELS) : undefined;
  const clientId = options.oidcClientId?.trim();
  if (clientId !== undefined && clientId !== '' && !oidc) {
    throw new ValidationError(
      'WEFT_OIDC_CLIENT_ID is set but WEFT_OIDC_ISSUER is not: set the identity provider too',
      { field: 'WEFT_OIDC_ISSUER', constraint: 'required' },
    );
  }
  if (clientId !== undefined && !/^[\x21-\x7e]{1,255}$/.test(clientId)) {
    throw new ValidationError(
      `WEFT_OIDC_CLIENT_ID must be 1 to 255 printable characters without spaces, not ${JSON.stringify(clientId)}`,
      { field: 'WEFT_OIDC_CLIENT_ID', constraint: 'format' },
    );
  }
  const scope = options.oidcScope?.trim() || 'openid';
  if (!/^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/.test(scope)) {
    throw new ValidationError(
      `WEFT_OIDC_SCOPE must be space-separated scopes, not ${JSON.stringify(scope)}`,
      {
        field: 'WEFT_OIDC_SCOPE',
        constraint: 'format',
      },
    );
  }
  return {
    oidc,
    signIn:
      oidc && clientId
        ? {
            clientId,
            name: options.oidcName?.trim().slice(0, 64) || new URL(oidc.issuer).host,
            scope,
          }
        : undefined,
    accessFile: options.accessFile ? resolve(options.accessFile) : undefined,
    accessFilePollMs: options.accessFilePollMs ?? 1000,
    auditorRoles: auditorRoles(options.auditorRoles ?? []),
  };
}

/** Auditor roles must be role names: a typo'd list would silently let nobody read. */
function auditorRoles(roles: readonly string[]): readonly string[] {
  const bad = roles.find((role) => !isKeyRole(role));
  if (bad !== undefined) {
    throw new ValidationError(
      `WEFT_OIDC_AUDITOR_ROLES must be comma-separated role names (a letter or digit, then letters, digits and _ . : / @ -), not ${JSON.stringify(bad)}`,
      { field: 'WEFT_OIDC_AUDITOR_ROLES', constraint: 'pattern' },
    );
  }
  return [...new Set(roles)].sort();
}

/**
 * Reads `WEFT_OIDC_ISSUER`, `WEFT_OIDC_AUDIENCE`, `WEFT_OIDC_JWKS_URL`, `WEFT_OIDC_ROLES_CLAIM`,
 * `WEFT_OIDC_PERMISSIONS_CLAIM`, `WEFT_OIDC_OWNER_CLAIM`, `WEFT_OIDC_OWNER`,
 * `WEFT_OIDC_CLOCK_TOLERANCE` (seconds), the console's `WEFT_OIDC_CLIENT_ID`, `WEFT_OIDC_NAME`,
 * `WEFT_OIDC_SCOPE`, `WEFT_OIDC_AUDITOR_ROLES` (comma-separated; API keys' roles count too, so it
 * needs no issuer) and `WEFT_ACCESS_FILE`.
 * A token setting without `WEFT_OIDC_ISSUER` is an error (it would silently do nothing).
 */
export function identityOptionsFromEnv(env: NodeJS.ProcessEnv): IdentityServerOptions {
  const value = (name: string) => env[name]?.trim() || undefined;
  const issuer = value('WEFT_OIDC_ISSUER');
  const others = [
    'WEFT_OIDC_AUDIENCE',
    'WEFT_OIDC_JWKS_URL',
    'WEFT_OIDC_ROLES_CLAIM',
    'WEFT_OIDC_PERMISSIONS_CLAIM',
    'WEFT_OIDC_OWNER_CLAIM',
    'WEFT_OIDC_OWNER',
    'WEFT_OIDC_CLOCK_TOLERANCE',
    'WEFT_OIDC_CLIENT_ID',
    'WEFT_OIDC_NAME',
    'WEFT_OIDC_SCOPE',
  ];
  const stray = others.find((name) => value(name) !== undefined);
  if (issuer === undefined && stray !== undefined) {
    throw new ValidationError(
      `${stray} is set but WEFT_OIDC_ISSUER is not: set the issuer of the identity provider's tokens too`,
      { field: 'WEFT_OIDC_ISSUER', constraint: 'required' },
    );
  }
  const tolerance = value('WEFT_OIDC_CLOCK_TOLERANCE');
  if (tolerance !== undefined && !/^[0-9]{1,4}$/.test(tolerance)) {
    throw new ValidationError(
      `WEFT_OIDC_CLOCK_TOLERANCE must be whole seconds (0 to 9999), not ${JSON.stringify(tolerance)}`,
      { field: 'WEFT_OIDC_CLOCK_TOLERANCE', constraint: 'integer' },
    );
  }
  const accessFile = value('WEFT_ACCESS_FILE');
  const auditors = value('WEFT_OIDC_AUDITOR_ROLES')
    ?.split(',')
    .map((role) => role.trim())
    .filter((role) => role !== '');
  return {
    ...(issuer !== undefined
      ? {
          oidc: {
            issuer,
            audience: value('WEFT_OIDC_AUDIENCE') ?? '',
            ...optional('jwksUrl', value('WEFT_OIDC_JWKS_URL')),
            ...optional('rolesClaim', value('WEFT_OIDC_ROLES_CLAIM')),
            ...optional('permissionsClaim', value('WEFT_OIDC_PERMISSIONS_CLAIM')),
            ...optional('ownerClaim', value('WEFT_OIDC_OWNER_CLAIM')),
            ...optional('owner', value('WEFT_OIDC_OWNER')),
            ...(tolerance !== undefined ? { clockToleranceSeconds: Number(tolerance) } : {}),
          },
        }
      : {}),
    ...optional('oidcClientId', value('WEFT_OIDC_CLIENT_ID')),
    ...optional('oidcName', value('WEFT_OIDC_NAME')),
    ...optional('oidcScope', value('WEFT_OIDC_SCOPE')),
    ...(accessFile !== undefined ? { accessFile } : {}),
    ...(auditors !== undefined ? { auditorRoles: auditors } : {}),
  };
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}
