import { ForbiddenError, type Principal } from '@weft/core';
import {
  authorizationEnabled,
  checkWorkflowAuthorization,
  forbiddenError,
  pickWorkflow,
  type WorkflowDefinition,
} from '@weft/engine';
import type { AuditLog } from '../audit/audit-log.js';
import { auditedCaller, type Guard } from './change-audit.js';

/** A deployment to check: the workflow, what it may call, and who deploys it. */
export interface DeployToAuthorize {
  workflow: WorkflowDefinition;
  /** The workflows its subworkflow steps may call (deployed or deployed with it). */
  library: readonly WorkflowDefinition[];
  /**
   * The deployer: the caller of `PUT /workflows/{name}`, or what the operator declared for the
   * workflows directory. Undefined: no identity (every guarded workflow is refused).
   */
  principal: Principal | undefined;
  /** `api`, or `file:<path>` for the workflows directory. */
  source: string;
  /** The workspace it is deployed in (the audit's owner). */
  owner: string;
  audit: AuditLog | undefined;
}

/**
 * Checks a deployment against the `authorization` blocks of the workflow and of every
 * subworkflow it may call (docs/authorization.md#deployments-and-triggers): the deployer must
 * pass them, since the runs of its triggers act as the deployer. Approval does not apply here
 * (it applies to each run). A refusal is audited (`workflow.deploy`, `deny`) and thrown as
 * `FORBIDDEN` with `details.missing_roles` / `missing_permissions`; the deployment service
 * audits what it then deploys. Resolves to what the workflow's own block requires (empty when
 * it has none in force). Unguarded workflows cost one look at their blocks.
 */
export async function authorizeDeploy(deploy: DeployToAuthorize): Promise<Guard> {
  const { workflow, library, principal, audit } = deploy;
  const required: Guard = authorizationEnabled(workflow)
    ? {
        roles: [...(workflow.authorization?.roles ?? [])],
        permissions: [...(workflow.authorization?.permissions ?? [])],
      }
    : { roles: [], permissions: [] };
  if (!authorizationEnabled(workflow) && !library.some(authorizationEnabled)) return required;
  const check = checkWorkflowAuthorization(workflow, principal, (name, range) =>
    pickWorkflow(library, name, range),
  );
  if (!check.guarded) return required;
  const directory = deploy.source.startsWith('file:');
  const base = {
    ...auditedCaller(principal, deploy.owner),
    action: 'workflow.deploy' as const,
    workflow: workflow.name,
    owner: principal?.owner ?? null,
  };
  const refusal = check.refusal;
  if (refusal) {
    await audit?.record({
      ...base,
      decision: 'deny',
      reason: `deployment refused by the authorization of workflow "${refusal.workflow}"`,
      required: refusal.required,
      missing: { roles: refusal.missing_roles, permissions: refusal.missing_permissions },
    });
    if (directory) throw directoryRefusal(workflow.name, deploy.source, refusal, principal);
    const error = forbiddenError(refusal, principal !== undefined, workflow.name);
    throw new ForbiddenError(
      `${error.message.replace('not authorized to run', 'not authorized to deploy')} (the runs of its triggers act as the deployer)`,
      error.details,
    );
  }
  return required;
}

/**
 * The refusal of a guarded workflow in the workflows directory, which has no caller: it says
 * what to do instead.
 */
function directoryRefusal(
  name: string,
  source: string,
  refusal: { workflow: string; missing_roles: string[]; missing_permissions: string[] },
  declared: Principal | undefined,
): ForbiddenError {
  const file = source.slice('file:'.length);
  const whose = refusal.workflow === name ? 'it' : `its subworkflow "${refusal.workflow}"`;
  const needs = [
    refusal.missing_roles.length > 0 ? `one of the roles ${refusal.missing_roles.join(', ')}` : '',
    refusal.missing_permissions.length > 0
      ? `the permissions ${refusal.missing_permissions.join(', ')}`
      : '',
  ]
    .filter((part) => part !== '')
    .join(' and ');
  const because = declared
    ? `the roles and permissions declared for the workflows directory (WEFT_WORKFLOWS_ROLES, WEFT_WORKFLOWS_PERMISSIONS) lack what ${whose} needs: ${needs}`
    : `the workflows directory deploys without a caller, so the runs of its triggers would have no identity; ${whose} needs ${needs}`;
  return new ForbiddenError(
    `workflow "${name}" in ${file} has authorization enabled and is not deployed: ${because}. ` +
      'Deploy it with `weft workflow deploy` under a key that passes its check, or declare what ' +
      "the directory's runs act as with WEFT_WORKFLOWS_ROLES and WEFT_WORKFLOWS_PERMISSIONS",
    {
      reason: 'directory_unauthorized',
      workflow: refusal.workflow,
      file,
      missing_roles: refusal.missing_roles,
      missing_permissions: refusal.missing_permissions,
    },
  );
}
