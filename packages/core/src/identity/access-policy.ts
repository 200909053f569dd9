import { grantList, NO_GRANTS, type Principal } from './principal.js';

/**
 * Which permissions each role grants (`WEFT_ACCESS_FILE`): roles come from the identity
 * provider or an API key, permissions from one reviewed file. A `Map`, so that a role called
 * `constructor` or `__proto__` is just a name.
 */
export interface AccessPolicy {
  readonly roles: ReadonlyMap<string, readonly string[]>;
}

/** The policy that grants nothing (no access file). */
export const EMPTY_ACCESS_POLICY: AccessPolicy = Object.freeze({ roles: new Map() });

/** The permissions `policy` grants to any of `roles`, sorted and de-duplicated. */
export function permissionsOfRoles(
  policy: AccessPolicy,
  roles: readonly string[],
): readonly string[] {
  if (policy.roles.size === 0 || roles.length === 0) return NO_GRANTS;
  const granted: string[] = [];
  for (const role of roles) {
    const permissions = policy.roles.get(role);
    if (permissions) granted.push(...permissions);
  }
  return granted.length === 0 ? NO_GRANTS : grantList(granted);
}

/**
 * The principal with the permissions its roles grant under `policy` added to its own. Returns
 * `principal` itself when the policy adds nothing.
 */
export function expandPrincipal(principal: Principal, policy: AccessPolicy): Principal {
  const added = permissionsOfRoles(policy, principal.roles);
  if (added.length === 0) return principal;
  const permissions = grantList([...principal.permissions, ...added]);
  if (permissions.length === principal.permissions.length) return principal;
  return { ...principal, permissions };
}
