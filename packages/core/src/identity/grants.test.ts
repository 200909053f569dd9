import { describe, expect, it } from 'vitest';
import { meetsGrants, missingGrants, permissionCovers } from './grants.js';
import { localPrincipal } from './principal.js';

const ada = localPrincipal({
  subject: 'ada',
  roles: ['finance', 'staff'],
  permissions: ['payments:approve', 'reports:*'],
});

describe('missingGrants', () => {
  it('needs one of the roles and all of the permissions', () => {
    expect(
      missingGrants(ada, { roles: ['ops', 'finance'], permissions: ['payments:approve'] }),
    ).toEqual({
      missing_roles: [],
      missing_permissions: [],
    });
    expect(
      missingGrants(ada, {
        roles: ['ops', 'admins'],
        permissions: ['payments:approve', 'payments:refund'],
      }),
    ).toEqual({
      missing_roles: ['ops', 'admins'],
      missing_permissions: ['payments:refund'],
    });
  });

  it('asks nothing of an empty requirement', () => {
    expect(meetsGrants(localPrincipal(), {})).toBe(true);
    expect(meetsGrants(localPrincipal(), { roles: [], permissions: [] })).toBe(true);
    expect(meetsGrants(localPrincipal(), { permissions: ['a:b'] })).toBe(false);
  });

  it('lets a wildcard verb grant every verb of its resource, and nothing else', () => {
    expect(
      missingGrants(ada, { permissions: ['reports:read', 'reports:delete'] }).missing_permissions,
    ).toEqual([]);
    expect(
      missingGrants(ada, { permissions: ['reports.archive:read'] }).missing_permissions,
    ).toEqual(['reports.archive:read']);
    expect(permissionCovers('reports:*', 'reports:*')).toBe(true);
    expect(permissionCovers('reports:read', 'reports:*')).toBe(false);
    expect(permissionCovers('report:*', 'reports:read')).toBe(false);
  });
});
