import type { Principal, StoredExecution } from '@weft/core';
import { stepPermissions, type RunInterceptor } from '@weft/engine';
import type { AuditLog } from '../audit/audit-log.js';

/**
 * The principal an execution runs as: who started it, as recorded then (on any server, and
 * after a resume). Undefined for an execution stored without one: its step checks then refuse.
 */
export function principalOf(execution: StoredExecution): Principal | undefined {
  const by = execution.started_by;
  if (!by) return undefined;
  return {
    kind: by.kind,
    subject: by.subject,
    name: by.name,
    owner: execution.owner,
    keyId: execution.key_id ?? `owner:${execution.owner}`,
    admin: false,
    roles: by.roles,
    permissions: by.permissions,
  };
}

/**
 * The step-permissions interceptor of a server run: each refused step is written to the audit
 * log before it fails (a refusal that cannot be recorded fails the step all the same).
 */
export function auditedStepPermissions(
  audit: AuditLog,
  execution: StoredExecution,
): RunInterceptor {
  return stepPermissions({
    onDeny: async ({ call, required, missing }) => {
      const principal = call.run.principal;
      await audit.record({
        subject: principal?.subject ?? execution.owner,
        credential: principal?.kind ?? 'local',
        action: 'step.run',
        decision: 'deny',
        reason: principal
          ? `step lacks permissions`
          : 'the execution has no recorded identity (started before identities were recorded)',
        workflow: call.run.workflow.name,
        executionId: execution.id,
        owner: execution.owner,
        step: call.step.path,
        required: { permissions: required },
        missing: { permissions: missing },
      });
    },
  });
}
