import { ForbiddenError, missingGrants, type MissingGrants, type Principal } from '@weft/core';
import type { WorkflowDefinition } from '../model.js';
import { calledWorkflows } from '../run/workflow-versions.js';

/** One workflow whose `authorization` block a caller does not meet. */
export interface AuthorizationRefusal extends MissingGrants {
  /** The workflow whose block refused: the one started, or a subworkflow it calls. */
  workflow: string;
  /** What the block requires (names only). */
  required: { roles: string[]; permissions: string[] };
}

/** What {@link checkWorkflowAuthorization} found. */
export interface AuthorizationCheck {
  /** Whether any workflow of the run has an enabled `authorization` block. */
  guarded: boolean;
  /** The first refusal: the workflow started before its subworkflows. */
  refusal: AuthorizationRefusal | undefined;
  /** The approval the started workflow asks for, when it is allowed and asks one. */
  approval: { approvers: string[]; timeoutSeconds: number } | undefined;
}

/** Seconds an approval waits when the block sets no `timeout`: one day. */
export const DEFAULT_APPROVAL_TIMEOUT_SECONDS = 86_400;

/** Whether a workflow's `authorization` block is in force (`enabled` defaults to true). */
export function authorizationEnabled(workflow: WorkflowDefinition): boolean {
  const block = workflow.authorization;
  return block !== undefined && block.enabled !== false;
}

/**
 * Checks, before a run starts, the `authorization` blocks (docs/authorization.md#checks) of
 * `workflow` and of every subworkflow it may call (resolved by `resolve`): the caller needs at
 * least one of `roles` and all of `permissions` of each. Without a principal every enabled block
 * refuses (fail closed). Pure: the callers answer 403, exit 2 or audit.
 */
export function checkWorkflowAuthorization(
  workflow: WorkflowDefinition,
  principal: Pick<Principal, 'roles' | 'permissions'> | undefined,
  resolve: (name: string, range: string | undefined) => WorkflowDefinition | undefined,
): AuthorizationCheck {
  const guarded: WorkflowDefinition[] = authorizationEnabled(workflow) ? [workflow] : [];
  for (const call of calledWorkflows(workflow, resolve)) {
    if (call.called && authorizationEnabled(call.called) && !guarded.includes(call.called))
      guarded.push(call.called);
  }
  let refusal: AuthorizationRefusal | undefined;
  for (const guardedWorkflow of guarded) {
    refusal = refusalOf(guardedWorkflow, principal);
    if (refusal) break;
  }
  const approval = workflow.authorization?.approval;
  return {
    guarded: guarded.length > 0,
    refusal,
    approval:
      refusal === undefined && authorizationEnabled(workflow) && approval?.required === true
        ? {
            approvers: [...(approval.approvers ?? [])],
            timeoutSeconds: approval.timeout ?? DEFAULT_APPROVAL_TIMEOUT_SECONDS,
          }
        : undefined,
  };
}

function refusalOf(
  workflow: WorkflowDefinition,
  principal: Pick<Principal, 'roles' | 'permissions'> | undefined,
): AuthorizationRefusal | undefined {
  const block = workflow.authorization!;
  const required = { roles: [...(block.roles ?? [])], permissions: [...(block.permissions ?? [])] };
  const missing = principal
    ? missingGrants(principal, required)
    : { missing_roles: required.roles, missing_permissions: required.permissions };
  if (!principal || missing.missing_roles.length > 0 || missing.missing_permissions.length > 0)
    return { workflow: workflow.name, required, ...missing };
  return undefined;
}

/**
 * The `FORBIDDEN` error of a refusal: `details` name what is missing (never the caller's other
 * grants), and `reason` says whether there was no identity at all.
 */
export function forbiddenError(
  refusal: AuthorizationRefusal,
  identified: boolean,
  started: string,
): ForbiddenError {
  const parts = [
    refusal.missing_roles.length > 0 ? `one of the roles ${refusal.missing_roles.join(', ')}` : '',
    refusal.missing_permissions.length > 0
      ? `the permissions ${refusal.missing_permissions.join(', ')}`
      : '',
  ].filter((part) => part !== '');
  const whose = refusal.workflow === started ? 'it' : `its subworkflow "${refusal.workflow}"`;
  const message = identified
    ? `not authorized to run workflow "${started}": ${whose} needs ${parts.join(' and ')}`
    : `workflow "${started}" has authorization enabled and this run has no identity: ${whose} needs ${parts.join(' and ') || 'an identity'}`;
  return new ForbiddenError(message, {
    reason: identified ? 'missing_grants' : 'no_identity',
    workflow: refusal.workflow,
    missing_roles: refusal.missing_roles,
    missing_permissions: refusal.missing_permissions,
  });
}
