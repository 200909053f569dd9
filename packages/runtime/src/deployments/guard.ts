import {
  ForbiddenError,
  missingGrants,
  type DeploymentRecord,
  type MissingGrants,
} from '@weft/core';
import { isPlainObject } from '@weft/engine';
import type { AuditLog } from '../audit/audit-log.js';
import { auditedCaller, type DeploymentChange, type Guard } from './change-audit.js';
import type { Deployer } from './deploy-plan.js';

/**
 * The guard of a stored revision: its `authorization` block when in force (`enabled` is not
 * false), undefined otherwise. The definition was validated when it was deployed; this reads it
 * defensively all the same (a value of the wrong type guards with nothing of it).
 */
export function guardOf(record: DeploymentRecord): Guard | undefined {
  const block = record.definition['authorization'];
  if (!isPlainObject(block) || block['enabled'] === false) return undefined;
  const names = (value: unknown) =>
    Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  return { roles: names(block['roles']), permissions: names(block['permissions']) };
}

/**
 * Checks that `by` may change (redeploy, with or without the block, or undeploy) a deployment
 * whose current revision is guarded: it must pass that block as a run would (one of its roles,
 * all of its permissions). A refusal is audited (`deny`, with the revision) and thrown as
 * `FORBIDDEN` naming what is missing; nothing changes. Admin keys are the server operator's and
 * are not checked (their change is audited as allowed by the caller). Resolves to the guard
 * that was checked, if any.
 */
export async function checkGuard(
  current: DeploymentRecord,
  by: Deployer,
  action: DeploymentChange,
  audit: AuditLog | undefined,
): Promise<Guard | undefined> {
  const guard = guardOf(current);
  if (!guard || by.admin === true) return guard;
  const principal = by.principal;
  const missing: MissingGrants = principal
    ? missingGrants(principal, guard)
    : { missing_roles: guard.roles, missing_permissions: guard.permissions };
  if (principal && missing.missing_roles.length === 0 && missing.missing_permissions.length === 0)
    return guard;
  const verb = action === 'workflow.deploy' ? 'redeploy' : 'undeploy';
  const needs = [
    missing.missing_roles.length > 0 ? `one of the roles ${missing.missing_roles.join(', ')}` : '',
    missing.missing_permissions.length > 0
      ? `the permissions ${missing.missing_permissions.join(', ')}`
      : '',
  ]
    .filter((part) => part !== '')
    .join(' and ');
  const message = `not authorized to ${verb} workflow "${current.name}": its current revision ${current.revision} has authorization enabled, and changing it needs what running it needs: ${needs || 'an identity'}`;
  await audit?.record({
    ...auditedCaller(principal, by.owner),
    action,
    decision: 'deny',
    reason: `${verb} of revision ${current.revision} refused by its authorization`,
    workflow: current.name,
    required: guard,
    missing: { roles: missing.missing_roles, permissions: missing.missing_permissions },
  });
  throw new ForbiddenError(message, {
    reason: principal ? 'guarded' : 'no_identity',
    workflow: current.name,
    revision: current.revision,
    missing_roles: missing.missing_roles,
    missing_permissions: missing.missing_permissions,
  });
}
