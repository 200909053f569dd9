import { describe, expect, it } from 'vitest';
import { parseAccessPolicy } from './access-file.js';

const problem = (text: string) => {
  try {
    parseAccessPolicy(text, 'access.yaml');
  } catch (error) {
    return { message: (error as Error).message, details: (error as { details?: unknown }).details };
  }
  throw new Error('expected an error');
};

describe('parseAccessPolicy', () => {
  it('maps each role to its sorted permissions', () => {
    const policy = parseAccessPolicy(`
roles:
  finance:
    description: Approves payments
    permissions: [reports:read, payments:approve, reports:read]
  ops:
    permissions:
      - deployments:*
  constructor:
    permissions: []
`);
    expect([...policy.roles]).toEqual([
      ['finance', ['payments:approve', 'reports:read']],
      ['ops', ['deployments:*']],
      ['constructor', []],
    ]);
  });

  it('names the field of every mistake', () => {
    expect(problem('roles:\n  finance:\n    permissions: [payments:approve, Payments]\n')).toEqual({
      message:
        'access.yaml: roles.finance.permissions[1] "Payments" is not a permission in <resource>:<verb> form (lowercase), e.g. payments:approve',
      details: { field: 'roles.finance.permissions[1]', constraint: 'pattern' },
    });
    expect(problem('roles:\n  finance:\n    permission: [a:b]\n').details).toEqual({
      field: 'roles.finance.permission',
      constraint: 'additionalProperties',
    });
    expect(problem('role: {}\n').details).toEqual({
      field: 'role',
      constraint: 'additionalProperties',
    });
    expect(problem('roles: [finance]\n').details).toEqual({ field: 'roles', constraint: 'type' });
    expect(problem('roles:\n  finance: {}\n').details).toEqual({
      field: 'roles.finance.permissions',
      constraint: 'type',
    });
    expect(problem('roles:\n  123:\n    permissions: []\n').details).toEqual({
      field: 'roles.123',
      constraint: 'roleName',
    });
    expect(problem('- a\n').details).toEqual({ field: 'access_file', constraint: 'type' });
  });

  it('refuses duplicate keys, YAML errors and alias bombs with the line', () => {
    expect(
      problem('roles:\n  a:\n    permissions: []\n  a:\n    permissions: []\n').message,
    ).toMatch(/^access\.yaml line 4:3: /);
    expect(problem('roles: [\n').details).toEqual({ field: 'access_file', constraint: 'yaml' });
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      ...'bcdefgh'
        .split('')
        .map((n, i) => `${n}: &${n} [${Array(10).fill(`*${'abcdefgh'[i]}`).join(', ')}]`),
      'roles: {}',
    ].join('\n');
    expect(problem(bomb).details).toEqual({ field: 'access_file', constraint: 'yaml' });
  });
});
