import { PERMISSION_PATTERN } from '../workflow/authorization.js';

/** Longest role or permission name anywhere (keys, tokens, the access file). */
export const MAX_GRANT_LENGTH = 128;

/** Most roles, and most permissions, one API key may carry. */
export const MAX_KEY_GRANTS = 64;

/**
 * Pattern of role names an API key may carry: a letter or digit, then letters, digits and
 * `_ . : / @ -` (the role names of Keycloak, Auth0 and Dex groups, spaces aside).
 */
export const ROLE_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.:/@-]*$';

const PERMISSION = new RegExp(PERMISSION_PATTERN);
const ROLE = new RegExp(ROLE_PATTERN);

/** True for a permission in `<resource>:<verb>` form (docs/workflow-language.md#authorization), at most 128 characters. */
export function isPermission(value: string): boolean {
  return value.length <= MAX_GRANT_LENGTH && PERMISSION.test(value);
}

/** True for a role name an API key may carry ({@link ROLE_PATTERN}, at most 128 characters). */
export function isKeyRole(value: string): boolean {
  return value.length <= MAX_GRANT_LENGTH && ROLE.test(value);
}

/**
 * Pattern of owner (workspace) names: a letter or digit, then letters, digits and `_ . -`, at
 * most 128 characters. API keys' `--owner`, the identity provider's owner claim and
 * `WEFT_OIDC_OWNER` all follow it, so a key and a token of one organisation name the same owner.
 */
export const OWNER_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$';

const OWNER = new RegExp(OWNER_PATTERN);

/** True for a valid owner name ({@link OWNER_PATTERN}). */
export function isOwnerName(value: string): boolean {
  return OWNER.test(value);
}
