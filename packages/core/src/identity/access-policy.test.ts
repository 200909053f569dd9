import { describe, expect, it } from 'vitest';
import { EMPTY_ACCESS_POLICY, expandPrincipal, permissionsOfRoles } from './access-policy.js';
import { keyPrincipal, localPrincipal } from './principal.js';

const policy = {
  roles: new Map([
    ['finance', ['payments:approve', 'reports:read']],
    ['auditors', ['reports:read']],
  ]),
};

describe('access policy', () => {
  it('grants the union of the permissions of the roles held, sorted', () => {
    expect(permissionsOfRoles(policy, ['auditors', 'finance', 'unknown'])).toEqual([
      'payments:approve',
      'reports:read',
    ]);
    expect(permissionsOfRoles(policy, ['constructor', '__proto__'])).toEqual([]);
  });

  it('adds them to a principal, keeping its own', () => {
    const principal = keyPrincipal({
      keyId: 'k',
      owner: 'o',
      roles: ['auditors'],
      permissions: ['x:y'],
    });
    expect(expandPrincipal(principal, policy).permissions).toEqual(['reports:read', 'x:y']);
  });

  it('returns the principal itself when nothing is added', () => {
    const principal = localPrincipal({ roles: ['auditors'], permissions: ['reports:read'] });
    expect(expandPrincipal(principal, policy)).toBe(principal);
    expect(expandPrincipal(principal, EMPTY_ACCESS_POLICY)).toBe(principal);
  });
});
