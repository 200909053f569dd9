import type { Principal } from '@weft/core';
import {
  authorizationEnabled,
  checkWorkflowAuthorization,
  forbiddenError,
  pickWorkflow,
  type WorkflowDefinition,
} from '@weft/engine';
import type { AuditLog } from '../audit/audit-log.js';
import type { WaitRequest } from '../waits/wait-events.js';

/** Trigger types whose runs have no caller and act as the deployment's deployer. */
const TRIGGERED: ReadonlySet<string> = new Set(['schedule', 'webhook', 'event']);

/** What a start needs checked: the workflow, what it may call, who starts it and how. */
export interface StartToAuthorize {
  workflow: WorkflowDefinition;
  library?: readonly WorkflowDefinition[];
  principal: Principal;
  trigger: { type: string };
}

/**
 * Checks a start against the `authorization` blocks of the workflow and of every subworkflow it
 * may call (docs/authorization.md#checks), before anything is stored. A refusal is audited and
 * thrown as `FORBIDDEN` (`details.missing_roles` / `missing_permissions`); an allowed start of a
 * guarded workflow is audited too (a failed audit write fails the start: nothing is allowed
 * unrecorded). Resolves to the approval wait the workflow asks for, if any.
 */
export async function authorizeStart(
  start: StartToAuthorize,
  audit: AuditLog,
): Promise<WaitRequest | undefined> {
  const { workflow, principal } = start;
  const library = start.library ?? [workflow];
  // The common case, on the hot path of every start: no workflow it may call is guarded.
  if (!authorizationEnabled(workflow) && !library.some(authorizationEnabled)) return undefined;
  const check = checkWorkflowAuthorization(workflow, principal, (name, range) =>
    pickWorkflow(library, name, range),
  );
  if (!check.guarded) return undefined;
  const base = {
    subject: principal.subject,
    // A run of a deployment's trigger acts as its deployer, with no credential of its own.
    credential: TRIGGERED.has(start.trigger.type) ? ('deployment' as const) : principal.kind,
    action: 'execution.start' as const,
    workflow: workflow.name,
    owner: principal.owner,
  };
  const refusal = check.refusal;
  if (refusal) {
    await audit.record({
      ...base,
      decision: 'deny',
      reason: `${start.trigger.type} start refused by the authorization of workflow "${refusal.workflow}"`,
      required: refusal.required,
      missing: { roles: refusal.missing_roles, permissions: refusal.missing_permissions },
    });
    throw forbiddenError(refusal, true, workflow.name);
  }
  await audit.record({
    ...base,
    decision: 'allow',
    reason: check.approval
      ? `${start.trigger.type} start allowed; waits for approval`
      : `${start.trigger.type} start allowed`,
    required: {
      roles: workflow.authorization?.roles ?? [],
      permissions: workflow.authorization?.permissions ?? [],
    },
  });
  if (!check.approval) return undefined;
  return {
    kind: 'approval',
    timeoutMs: check.approval.timeoutSeconds * 1000,
    details: {
      approvers: check.approval.approvers,
      requested_by: { kind: principal.kind, subject: principal.subject, name: principal.name },
    },
  };
}
