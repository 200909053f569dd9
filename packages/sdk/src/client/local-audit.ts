import { timeOrderedId, type AuditDraft, type AuditEntry, type Principal } from '@weft/core';
import { stepPermissions, type AuthorizationRefusal, type RunInterceptor } from '@weft/engine';
import type { Logger } from 'pino';

/**
 * An authorization decision of a local run, in the shape of the server's audit entry
 * (`AuditEntry` of `@weft/core`, docs/authorization.md#audit-log): `id` (UUID v7), `at`,
 * `subject`, `credential`, `action`, `workflow`, `execution_id`, `step`, `decision`, `reason`,
 * `required`, `missing`, `owner`. A local run keeps no hash chain, so `seq`, `prev_hash` and
 * `hash` are absent here.
 */
export type LocalAuditEntry = AuditDraft & Partial<Pick<AuditEntry, 'seq' | 'prev_hash' | 'hash'>>;

/** The `onAudit` hook of `Weft`: gets each audited decision of a local run. */
export type OnAudit = (entry: LocalAuditEntry) => void | Promise<void>;

/** One refusal, as the server's `AuditLog.record` takes it. */
interface Denial {
  principal: Principal | undefined;
  action: 'execution.start' | 'step.run';
  reason: string;
  workflow: string;
  executionId: string | null;
  step: string | null;
  required: { roles: string[]; permissions: string[] };
  missing: { roles: string[]; permissions: string[] };
}

/**
 * The audit of local runs: each refusal becomes a {@link LocalAuditEntry}, logged once at warn
 * level as `{event: "authorization.denied", audit}` (the server logs its entries as `{audit}`)
 * and given to the `onAudit` hook. A hook that fails is logged; the refusal stands.
 */
export class LocalAudit {
  constructor(
    private readonly logger: Logger,
    private readonly onAudit: OnAudit | undefined,
  ) {}

  /** Audits the refusal of a run's start by the `authorization` block of `refusal.workflow`. */
  async startDenied(
    started: string,
    refusal: AuthorizationRefusal,
    principal: Principal | undefined,
  ): Promise<void> {
    await this.deny({
      principal,
      action: 'execution.start',
      reason: principal
        ? `local start refused by the authorization of workflow "${refusal.workflow}"`
        : `local start refused by the authorization of workflow "${refusal.workflow}": the run has no identity`,
      workflow: started,
      // As on the server: a refused start has no execution.
      executionId: null,
      step: null,
      required: {
        roles: [...refusal.required.roles],
        permissions: [...refusal.required.permissions],
      },
      missing: { roles: [...refusal.missing_roles], permissions: [...refusal.missing_permissions] },
    });
  }

  /** The step-permissions interceptor of a local run, auditing each refused step. */
  stepPermissions(): RunInterceptor {
    return stepPermissions({
      onDeny: ({ call, required, missing }) =>
        this.deny({
          principal: call.run.principal,
          action: 'step.run',
          reason: call.run.principal
            ? 'step lacks permissions'
            : 'step lacks permissions: the run has no identity',
          workflow: call.run.workflow.name,
          executionId: call.run.executionId,
          step: call.step.path,
          required: { roles: [], permissions: required },
          missing: { roles: [], permissions: missing },
        }),
    });
  }

  private async deny(denial: Denial): Promise<void> {
    const now = Date.now();
    const entry: LocalAuditEntry = {
      id: timeOrderedId(now),
      at: new Date(now).toISOString(),
      subject: denial.principal?.subject ?? 'local',
      credential: denial.principal?.kind ?? 'local',
      action: denial.action,
      workflow: denial.workflow,
      execution_id: denial.executionId,
      step: denial.step,
      decision: 'deny',
      reason: denial.reason,
      required: denial.required,
      missing: denial.missing,
      owner: denial.principal?.owner ?? null,
    };
    this.logger.warn(
      { event: 'authorization.denied', audit: entry },
      `audit: deny ${entry.action}`,
    );
    if (!this.onAudit) return;
    try {
      await this.onAudit(entry);
    } catch (error) {
      this.logger.error({ event: 'audit.hook_failed', err: error }, 'onAudit failed');
    }
  }
}
