import { LineCounter, parseDocument } from 'yaml';
import {
  grantList,
  isPermission,
  MAX_GRANT_LENGTH,
  ValidationError,
  type AccessPolicy,
} from '@weft/core';

/** Largest access file, bytes of UTF-8 (1 MiB). */
export const MAX_ACCESS_FILE_BYTES = 1024 * 1024;
/** Most roles one access file names. */
export const MAX_ACCESS_ROLES = 10_000;
/** Most permissions one role of the access file grants. */
export const MAX_ROLE_PERMISSIONS = 1000;

const ROLE_KEYS = new Set(['permissions', 'description']);

/**
 * Parses an access file (`WEFT_ACCESS_FILE`):
 *
 * ```yaml
 * roles:
 *   finance:
 *     description: Approves payments   # optional
 *     permissions: [payments:approve, reports:read]
 * ```
 *
 * Strict: unknown keys, duplicate keys, a role name that is not a string, a permission not in
 * `<resource>:<verb>` form are all `VALIDATION` errors whose `details.field` is the path
 * (`roles.finance.permissions[1]`) and whose message names the line. `source` (the file name)
 * starts every message.
 */
export function parseAccessPolicy(text: string, source = 'access file'): AccessPolicy {
  if (Buffer.byteLength(text) > MAX_ACCESS_FILE_BYTES) {
    throw fail(source, '', `is larger than ${MAX_ACCESS_FILE_BYTES} bytes`, 'maxLength');
  }
  const lines = new LineCounter();
  let value: unknown;
  try {
    const doc = parseDocument(text, {
      lineCounter: lines,
      uniqueKeys: true,
      prettyErrors: false,
      version: '1.2',
      merge: false,
      strict: true,
    });
    const first = doc.errors[0];
    if (first) {
      const { line, col } = lines.linePos(first.pos[0]);
      throw fail(source, '', `line ${line}:${col}: ${first.message.split('\n')[0]}`, 'yaml');
    }
    value = doc.toJS({ mapAsMap: true, maxAliasCount: 100 });
  } catch (error) {
    if (error instanceof ValidationError) throw error;
    throw fail(source, '', `cannot be read as YAML: ${(error as Error).message}`, 'yaml');
  }
  return { roles: readRoles(value, source) };
}

function readRoles(value: unknown, source: string): Map<string, readonly string[]> {
  if (!(value instanceof Map)) {
    throw fail(source, '', 'must be a mapping with a `roles` key', 'type');
  }
  for (const key of value.keys()) {
    if (key !== 'roles')
      throw fail(source, String(key), 'is not a known key (only `roles`)', 'additionalProperties');
  }
  const roles = value.get('roles');
  if (!(roles instanceof Map)) {
    throw fail(source, 'roles', 'must be a mapping of role names to {permissions: [...]}', 'type');
  }
  if (roles.size > MAX_ACCESS_ROLES) {
    throw fail(source, 'roles', `names more than ${MAX_ACCESS_ROLES} roles`, 'maxProperties');
  }
  const policy = new Map<string, readonly string[]>();
  for (const [name, role] of roles) {
    if (
      typeof name !== 'string' ||
      name === '' ||
      name.length > MAX_GRANT_LENGTH ||
      /\p{Cc}/u.test(name)
    ) {
      throw fail(
        source,
        `roles.${String(name)}`,
        `is not a role name: role names are strings of 1 to ${MAX_GRANT_LENGTH} characters (quote numbers and booleans)`,
        'roleName',
      );
    }
    policy.set(name, readRole(role, `roles.${name}`, source));
  }
  return policy;
}

function readRole(role: unknown, path: string, source: string): readonly string[] {
  if (!(role instanceof Map)) {
    throw fail(source, path, 'must be a mapping with a `permissions` list', 'type');
  }
  for (const key of role.keys()) {
    if (typeof key !== 'string' || !ROLE_KEYS.has(key)) {
      throw fail(
        source,
        `${path}.${String(key)}`,
        'is not a known key (`permissions`, `description`)',
        'additionalProperties',
      );
    }
  }
  const description = role.get('description');
  if (description !== undefined && typeof description !== 'string') {
    throw fail(source, `${path}.description`, 'must be a string', 'type');
  }
  const permissions = role.get('permissions');
  if (!Array.isArray(permissions)) {
    throw fail(source, `${path}.permissions`, 'must be a list of permissions', 'type');
  }
  if (permissions.length > MAX_ROLE_PERMISSIONS) {
    throw fail(
      source,
      `${path}.permissions`,
      `lists more than ${MAX_ROLE_PERMISSIONS} permissions`,
      'maxItems',
    );
  }
  permissions.forEach((permission: unknown, index) => {
    if (typeof permission !== 'string' || !isPermission(permission)) {
      throw fail(
        source,
        `${path}.permissions[${index}]`,
        `${JSON.stringify(permission)} is not a permission in <resource>:<verb> form (lowercase), e.g. payments:approve`,
        'pattern',
      );
    }
  });
  return grantList(permissions as string[]);
}

function fail(source: string, field: string, message: string, constraint: string): ValidationError {
  const where = field === '' ? source : `${source}: ${field}`;
  return new ValidationError(`${where} ${message}`, { field: field || 'access_file', constraint });
}
