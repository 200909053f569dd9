import { UnauthorizedError, grantList, isOwnerName, isPermission, NO_GRANTS } from '@weft/core';

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
    return grantList(value);
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
    found.push(...value);
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

/**
 * The owner (workspace) a token names in the claim at `path`: a string that is an owner name.
 * A list holding exactly one such string counts as that string (providers such as Keycloak send
 * a user's organisations as a list, usually of one); a list of several is refused, since which
 * of them a request acts for cannot be told. An object (Keycloak's organization claim with
 * attributes: `{"acme": {...}}`) counts when it has exactly one key whose value is an object of
 * attributes: `{"name": "acme"}` is refused, not read as owner `name` (a path that stops one
 * level short would otherwise put every organisation in one workspace). Absent: `missing_claim`;
 * anything else: `bad_claim`; both name the claim and the setting.
 */
export function ownerClaim(payload: Readonly<Record<string, unknown>>, path: string): string {
  const value = claimAt(payload, path);
  if (value === undefined || value === null) {
    throw new UnauthorizedError(
      `the token has no ${path} claim, which names the user's workspace: check the identity provider's claim mapping or WEFT_OIDC_OWNER_CLAIM`,
      { reason: 'missing_claim', claim: path },
    );
  }
  const single = Array.isArray(value)
    ? value.length === 1
      ? value[0]
      : undefined
    : typeof value === 'object'
      ? onlyKey(value as Record<string, unknown>)
      : value;
  if (typeof single === 'string' && isOwnerName(single)) return single;
  const found = Array.isArray(value)
    ? `a list of ${value.length} entries`
    : typeof value === 'string'
      ? `${JSON.stringify(value.slice(0, 64))}`
      : typeof value === 'object'
        ? 'an object that is not {"<alias>": {attributes}}'
        : `a ${typeof value}`;
  throw new UnauthorizedError(
    `the token's ${path} claim must name one workspace (an owner name: a letter or digit, then letters, digits and _ . -; or a list of exactly one), not ${found}: check the identity provider's claim mapping or WEFT_OIDC_OWNER_CLAIM`,
    { reason: 'bad_claim', claim: path },
  );
}

/** The one key of `{alias: {attributes}}`, else undefined. */
function onlyKey(object: Record<string, unknown>): string | undefined {
  const keys = Object.keys(object);
  if (keys.length !== 1) return undefined;
  const attributes = object[keys[0]!];
  return typeof attributes === 'object' && attributes !== null && !Array.isArray(attributes)
    ? keys[0]
    : undefined;
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
