import { describe, expect, it } from 'vitest';
import { claimAt, permissionsClaim, rolesClaim } from './claims.js';

describe('claimAt', () => {
  it('prefers a top-level claim named by the whole path, else walks the dots', () => {
    expect(claimAt({ 'a.b': 1, a: { b: 2 } }, 'a.b')).toBe(1);
    expect(claimAt({ a: { b: 2 } }, 'a.b')).toBe(2);
    expect(claimAt({ a: [{ b: 2 }] }, 'a.0.b')).toBeUndefined();
    expect(claimAt({ a: 'text' }, 'a.length')).toBeUndefined();
  });

  it('reads own properties only (no prototype walk)', () => {
    expect(claimAt({}, 'constructor')).toBeUndefined();
    expect(claimAt({ a: {} }, 'a.__proto__.toString')).toBeUndefined();
    expect(claimAt(JSON.parse('{"__proto__": {"roles": ["admin"]}}'), '__proto__.roles')).toEqual([
      'admin',
    ]);
  });
});

describe('roles and permissions of a token', () => {
  it('sorts and de-duplicates roles', () => {
    expect(rolesClaim({ groups: ['b', 'a', 'b'] }, 'groups')).toEqual(['a', 'b']);
  });

  it('takes a permissions list or string, adds scope, and leaves out non-permissions', () => {
    expect(
      permissionsClaim(
        { permissions: ['payments:write', 'Not A Permission'], scope: 'openid reports:read' },
        'permissions',
      ),
    ).toEqual(['payments:write', 'reports:read']);
    expect(permissionsClaim({ scope: 'openid a:b' }, 'scope')).toEqual(['a:b']);
    expect(permissionsClaim({ scope: ['a:b'] }, 'permissions')).toEqual([]);
  });
});
