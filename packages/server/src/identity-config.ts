import { resolve } from 'node:path';
import { ValidationError } from '@weft/core';
import { compileOidcOptions, type CompiledOidcOptions, type OidcOptions } from '@weft/identity';

/** Identity-provider tokens and access management of `weft server`. */
export interface IdentityServerOptions {
  /** Accept tokens of this OpenID Connect provider (`WEFT_OIDC_*`); default: API keys only. */
  oidc?: OidcOptions;
  /** YAML file granting permissions by role (`WEFT_ACCESS_FILE`), reloaded when it changes. */
  accessFile?: string;
  /** How often the access file is checked for a change, ms. Default 1000. */
  accessFilePollMs?: number;
}

/** {@link IdentityServerOptions} checked, with defaults filled in. */
export interface CompiledIdentityOptions {
  oidc: CompiledOidcOptions | undefined;
  /** Absolute path. */
  accessFile: string | undefined;
  accessFilePollMs: number;
}

/** The environment variable of each OIDC setting, named in errors. */
const LABELS = {
  issuer: 'WEFT_OIDC_ISSUER',
  audience: 'WEFT_OIDC_AUDIENCE',
  jwksUrl: 'WEFT_OIDC_JWKS_URL',
  rolesClaim: 'WEFT_OIDC_ROLES_CLAIM',
  permissionsClaim: 'WEFT_OIDC_PERMISSIONS_CLAIM',
};

/**
 * Checks the identity settings once at start: an issuer that is not https outside loopback, an
 * issuer without audience, a bad claim path are `VALIDATION` errors naming the variable.
 */
export function compileIdentityOptions(
  options: IdentityServerOptions = {},
): CompiledIdentityOptions {
  return {
    oidc: options.oidc ? compileOidcOptions(options.oidc, LABELS) : undefined,
    accessFile: options.accessFile ? resolve(options.accessFile) : undefined,
    accessFilePollMs: options.accessFilePollMs ?? 1000,
  };
}

/**
 * Reads `WEFT_OIDC_ISSUER`, `WEFT_OIDC_AUDIENCE`, `WEFT_OIDC_JWKS_URL`, `WEFT_OIDC_ROLES_CLAIM`,
 * `WEFT_OIDC_PERMISSIONS_CLAIM`, `WEFT_OIDC_CLOCK_TOLERANCE` (seconds) and `WEFT_ACCESS_FILE`.
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
    'WEFT_OIDC_CLOCK_TOLERANCE',
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
  return {
    ...(issuer !== undefined
      ? {
          oidc: {
            issuer,
            audience: value('WEFT_OIDC_AUDIENCE') ?? '',
            ...optional('jwksUrl', value('WEFT_OIDC_JWKS_URL')),
            ...optional('rolesClaim', value('WEFT_OIDC_ROLES_CLAIM')),
            ...optional('permissionsClaim', value('WEFT_OIDC_PERMISSIONS_CLAIM')),
            ...(tolerance !== undefined ? { clockToleranceSeconds: Number(tolerance) } : {}),
          },
        }
      : {}),
    ...(accessFile !== undefined ? { accessFile } : {}),
  };
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}
