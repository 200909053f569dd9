import type { Principal } from '@weft/core';
import type { AuditEvent, AuditLog } from '../audit/audit-log.js';
import type { Deployer } from './deploy-plan.js';

/** What changes a deployment: a (re)deploy or an undeploy. */
export type DeploymentChange = 'workflow.deploy' | 'workflow.delete';

/** Roles (one of) and permissions (all) an `authorization` block requires. */
export interface Guard {
  roles: string[];
  permissions: string[];
}

/** Who an audit entry of a deployment change names, and the workspace it is about. */
export function auditedCaller(
  principal: Principal | undefined,
  owner: string,
): Pick<AuditEvent, 'subject' | 'credential' | 'owner'> {
  return {
    subject: principal?.subject ?? 'workflows-directory',
    credential: principal?.kind ?? 'local',
    owner,
  };
}

/** An allowed deploy or undeploy, as the audit log records it. */
export interface AllowedChange {
  action: DeploymentChange;
  principal: Principal | undefined;
  owner: string;
  workflow: string;
  /** What happens, with the revision: `revision 2 deployed`, `revision 1 undeployed`. */
  what: string;
  /** The guard of the revision it replaces or removes, if any. */
  guard: Guard | undefined;
  /** The caller (undefined: the workflows directory, the operator's). */
  by: Deployer | undefined;
  /** What the caller was checked against. */
  required: Guard | undefined;
}

/**
 * Records an allowed deploy or undeploy, before it changes anything: a change whose entry cannot
 * be written fails (nothing is changed unrecorded). The reason says how a guarded revision's
 * guard was passed.
 */
export async function auditAllowed(
  audit: AuditLog | undefined,
  change: AllowedChange,
): Promise<void> {
  await audit?.record({
    ...auditedCaller(change.principal, change.owner),
    action: change.action,
    decision: 'allow',
    reason: `${change.what}${guardedBy(change.guard, change.by)}`,
    workflow: change.workflow,
    required: change.required ?? {},
  });
}

/** Both requirements a change was checked against, each name once. */
export function mergeGuards(a: Guard | undefined, b: Guard): Guard {
  return {
    roles: [...new Set([...(a?.roles ?? []), ...b.roles])],
    permissions: [...new Set([...(a?.permissions ?? []), ...b.permissions])],
  };
}

/** How an allowed change of a guarded revision passed its guard, for the audit's reason. */
function guardedBy(guard: Guard | undefined, by: Deployer | undefined): string {
  if (!guard) return '';
  if (!by) return '; the guarded revision was changed by the workflows directory (the operator)';
  return by.admin === true
    ? '; the guarded revision was changed with an admin key (the operator), not checked against its authorization'
    : '; the caller passed the authorization of the guarded revision';
}
