import {
  isKeyRole,
  isOwnerName,
  isPermission,
  MAX_KEY_GRANTS,
  ValidationError,
  type CreatedKey,
  type CreateKeyRequest,
} from '@weft/core';
import { generateApiKey, type ApiKeyStore } from './api-keys.js';

/**
 * Creates and stores a key; the answer holds the key itself, shown once. The owner defaults to
 * the name made lowercase with runs of other characters as `-`. The name, the owner (given or
 * derived), roles and permissions are checked here too (the HTTP schema checks some earlier;
 * `weft auth create-key` comes here directly): an empty or blank name, or a name that gives no
 * owner (`"!!"`) without one, is `VALIDATION` naming it.
 */
export async function createApiKey(
  store: ApiKeyStore,
  request: CreateKeyRequest,
  at: string,
): Promise<CreatedKey> {
  if (request.name.trim() === '')
    throw new ValidationError('the key needs a name: it is empty or blank', {
      field: 'name',
      constraint: 'required',
    });
  const owner =
    request.owner ??
    request.name
      .trim()
      .toLowerCase()
      .replace(/[^a-z0-9_.-]+/g, '-')
      .replace(/^[-_.]+/, '');
  if (!isOwnerName(owner))
    throw new ValidationError(
      request.owner === undefined
        ? `the name "${request.name}" gives no owner name: give the owner too`
        : `owner "${owner}" must start with a letter or digit, then letters, digits and _ . -`,
      { field: 'owner', constraint: 'pattern' },
    );
  const roles = checkedGrants('roles', request.roles ?? [], isKeyRole, ROLE_RULE);
  const permissions = checkedGrants(
    'permissions',
    request.permissions ?? [],
    isPermission,
    PERMISSION_RULE,
  );
  const { key, record } = generateApiKey({
    name: request.name,
    owner,
    admin: request.admin ?? false,
    roles,
    permissions,
    at,
  });
  await store.insertApiKey(record);
  return {
    name: record.name,
    owner: record.owner,
    key,
    roles: record.roles,
    permissions: record.permissions,
    created_at: at,
  };
}

const ROLE_RULE =
  'a role name: a letter or digit, then letters, digits and _ . : / @ - (at most 128 characters)';
const PERMISSION_RULE =
  'a permission in <resource>:<verb> form, lowercase, e.g. payments:write (at most 128 characters)';

function checkedGrants(
  field: 'roles' | 'permissions',
  values: readonly string[],
  valid: (value: string) => boolean,
  rule: string,
): readonly string[] {
  if (values.length > MAX_KEY_GRANTS) {
    throw new ValidationError(`a key carries at most ${MAX_KEY_GRANTS} ${field}`, {
      field,
      constraint: 'maxItems',
    });
  }
  values.forEach((value, index) => {
    if (typeof value !== 'string' || !valid(value)) {
      throw new ValidationError(`${field}[${index}] ${JSON.stringify(value)} is not ${rule}`, {
        field: `${field}[${index}]`,
        constraint: 'pattern',
      });
    }
  });
  return values;
}
