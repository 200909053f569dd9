import type { Principal } from './principal.js';

/** What a workflow or a step demands (docs/workflow-language.md#authorization): at least one role, every permission. */
export interface GrantRequirement {
  /** The caller needs at least one of these; none listed: no role is needed. */
  roles?: readonly string[];
  /** The caller needs all of these. */
  permissions?: readonly string[];
}

/** What a caller lacks, on the wire as in `FORBIDDEN` details. Both empty: nothing is missing. */
export interface MissingGrants {
  /** The roles asked for when the caller holds none of them; empty when one is held. */
  missing_roles: string[];
  /** Every asked permission the caller does not hold. */
  missing_permissions: string[];
}

/**
 * Whether `granted` covers the permission `wanted`: the same string, or `<resource>:*` of the
 * same resource (a wildcard verb grants every verb). A wildcard is only ever a grant: asking for
 * `payments:*` is satisfied by `payments:*` alone.
 */
export function permissionCovers(granted: string, wanted: string): boolean {
  if (granted === wanted) return true;
  if (!granted.endsWith(':*')) return false;
  const resource = granted.slice(0, -1);
  return wanted.startsWith(resource) && wanted.indexOf(':', resource.length) === -1;
}

/** Whether the principal holds a permission (see {@link permissionCovers}). */
export function hasPermission(principal: Pick<Principal, 'permissions'>, wanted: string): boolean {
  for (const granted of principal.permissions) if (permissionCovers(granted, wanted)) return true;
  return false;
}

/**
 * What `principal` lacks to meet `requirement`: the listed roles when it holds none of them, and
 * each listed permission it does not hold. Pure; the callers decide what a lack means (403,
 * a step refused, an audit line).
 */
export function missingGrants(
  principal: Pick<Principal, 'roles' | 'permissions'>,
  requirement: GrantRequirement,
): MissingGrants {
  const roles = requirement.roles ?? [];
  const held = roles.length === 0 || roles.some((role) => principal.roles.includes(role));
  return {
    missing_roles: held ? [] : [...roles],
    missing_permissions: (requirement.permissions ?? []).filter(
      (permission) => !hasPermission(principal, permission),
    ),
  };
}

/** True when {@link missingGrants} finds nothing missing. */
export function meetsGrants(
  principal: Pick<Principal, 'roles' | 'permissions'>,
  requirement: GrantRequirement,
): boolean {
  const missing = missingGrants(principal, requirement);
  return missing.missing_roles.length === 0 && missing.missing_permissions.length === 0;
}
