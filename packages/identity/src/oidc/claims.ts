import { UnauthorizedError, grantList, isPermission, NO_GRANTS } from '@weft/core';

/**
 * The value of a claim: `path` as one top-level claim name first (so that namespaced claims such
 * as Auth0's `https://example.com/roles` work), else as a dotted path into nested objects
 * (Keycloak's `realm_access.roles`). Only own properties are read.
 */
export function claimAt(payload: Readonly<Record<string, unknown>>, path: string): unknown {
  if (Object.hasOwn(payload, path)) return payload[path];
  let current: unknown = payload;
  for (const part of path.split('.')) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    if (!Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/**
 * The roles a token grants: the claim at `path` must be a list of strings (or absent: no roles).
 * Any other type fails closed: `UNAUTHORIZED` with `reason: bad_claim`, so that a provider
 * configured to send roles some other way is noticed instead of silently granting nothing.
 */
export function rolesClaim(
  payload: Readonly<Record<string, unknown>>,
  path: string,
): readonly string[] {
  const value = claimAt(payload, path);
  if (value === undefined) return NO_GRANTS;
  if (Array.isArray(value) && value.every((role) => typeof role === 'string')) {
    return grantList(value as string[]);
  }
  throw badClaim(path, value, 'a list of strings', 'WEFT_OIDC_ROLES_CLAIM');
}

/**
 * The permissions a token grants: the claim at `path` (a list of strings, or one space-separated
 * string), plus the standard `scope` claim when it is a string. Entries not of `<resource>:<verb>`
 * form (`openid`, `profile`) are not permissions and are left out. A `path` claim of another
 * type is `UNAUTHORIZED` (`reason: bad_claim`).
 */
export function permissionsClaim(
  payload: Readonly<Record<string, unknown>>,
  path: string,
): readonly string[] {
  const value = claimAt(payload, path);
  const found: string[] = [];
  if (typeof value === 'string') found.push(...value.split(/\s+/));
  else if (Array.isArray(value) && value.every((entry) => typeof entry === 'string')) {
    found.push(...(value as string[]));
  } else if (value !== undefined) {
    throw badClaim(
      path,
      value,
      'a list of strings or a space-separated string',
      'WEFT_OIDC_PERMISSIONS_CLAIM',
    );
  }
  const scope = path === 'scope' ? undefined : payload['scope'];
  if (typeof scope === 'string') found.push(...scope.split(/\s+/));
  const permissions = found.filter(isPermission);
  return permissions.length === 0 ? NO_GRANTS : grantList(permissions);
}

/** A short, printable string claim, or `undefined`. */
export function textClaim(
  payload: Readonly<Record<string, unknown>>,
  name: string,
): string | undefined {
  const value = payload[name];
  return typeof value === 'string' && value !== '' && value.length <= 255 && !/\p{Cc}/u.test(value)
    ? value
    : undefined;
}

function badClaim(
  path: string,
  value: unknown,
  expected: string,
  setting: string,
): UnauthorizedError {
  const found =
    value === null
      ? 'null'
      : Array.isArray(value)
        ? 'a list with non-strings'
        : `a ${typeof value}`;
  return new UnauthorizedError(
    `the token's ${path} claim must be ${expected}, not ${found}: check the identity provider's claim mapping or ${setting}`,
    { reason: 'bad_claim', claim: path },
  );
}
