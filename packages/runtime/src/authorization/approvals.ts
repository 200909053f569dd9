import {
  ConflictError,
  ForbiddenError,
  ValidationError,
  type Principal,
  type StoredExecution,
  type WaitingFor,
} from '@weft/core';
import type { AuditLog } from '../audit/audit-log.js';
import type { Runtime } from '../runtime.js';
import { TOOL_CALL_WAIT } from '../waits/tool-calls.js';
import { checkToolArguments } from './tool-arguments.js';

/** The kinds of wait an approver decides: a workflow's start, an agent's tool call. */
const DECIDED_KINDS: ReadonlySet<string> = new Set(['approval', TOOL_CALL_WAIT]);

/** Longest comment of a decision. */
export const MAX_APPROVAL_COMMENT = 2_000;

/** A decision on a waiting run. */
export type ApprovalVerdict = 'approve' | 'reject';

/** Who started a run that waits for approval, as its `waiting_for` keeps it. */
interface RequestedBy {
  kind: string;
  subject: string;
  name?: string;
}

/** A page of the waiting executions a caller may decide. */
export interface ApprovalPage {
  executions: StoredExecution[];
  /** Position to continue from; undefined at the end. */
  next: { created_at: string; id: string } | undefined;
}

/**
 * Approvals (docs/authorization.md#approvals): lists the runs that wait for a caller's decision
 * and decides them. A decision is one conditional write of the store (a second one, on any
 * server, answers `409 CONFLICT`); approvers need one of the workflow's `approvers` roles and
 * may not decide their own run unless `allowSelfApproval`. Every decision and every refusal is
 * audited. Nothing crosses an owner: a key lists and decides its owner's runs only (an admin
 * key, the operator's, every owner's).
 */
export class Approvals {
  constructor(
    private readonly runtime: Runtime,
    private readonly audit: AuditLog,
  ) {}

  /** Waiting executions `principal` may decide, newest first, `limit` at most. */
  async list(
    principal: Principal,
    limit: number,
    after?: { created_at: string; id: string },
  ): Promise<ApprovalPage> {
    const { store } = this.runtime.options;
    const found: StoredExecution[] = [];
    let position = after;
    const batch = Math.max(limit, 100);
    for (;;) {
      const rows = await store.list({
        owner: decidableOwner(principal),
        status: 'waiting',
        limit: batch,
        ...(position ? { after: position } : {}),
      });
      for (const row of rows) {
        if (found.length === limit) return { executions: found, next: positionOf(found.at(-1)!) };
        if (this.mayDecide(principal, row) === undefined) found.push(row);
      }
      if (rows.length < batch) return { executions: found, next: undefined };
      position = positionOf(rows.at(-1)!);
    }
  }

  /**
   * Approves (the run continues from its journal, on whichever server claims it) or rejects
   * (it ends `canceled`) a run waiting for approval. A run waiting for an agent's tool call
   * (`tool_call`) continues either way: approved, the tool runs (with `args`, the approver's
   * edited arguments, when given: checked against the tool's input schema, audited as an edit);
   * rejected, the model is told who rejected it and why. Throws `NOT_FOUND` for an unknown id and for
   * another owner's execution alike (an admin key excepted), `FORBIDDEN` without an approver
   * role or for one's own run (the same subject), `VALIDATION` for arguments that are not the
   * tool's (nothing decided), and `CONFLICT` when it does not wait for approval any more.
   */
  async decide(
    id: string,
    principal: Principal,
    verdict: ApprovalVerdict,
    comment: string | undefined,
    args?: Record<string, unknown>,
  ): Promise<StoredExecution> {
    // Another owner's execution is answered exactly as an unknown id (the same NOT_FOUND as
    // `GET /workflows/executions/{id}`): nothing tells a stranger it exists or who approves it.
    const owner = decidableOwner(principal);
    const execution = await this.runtime.get(id, owner);
    const waiting = approvalOf(execution);
    if (!waiting) throw notWaiting(execution);
    const refusal = this.mayDecide(principal, execution);
    const action = verdict === 'approve' ? 'execution.approve' : 'execution.reject';
    const toolCall = waiting.kind === TOOL_CALL_WAIT;
    const base = {
      subject: principal.subject,
      credential: principal.kind,
      action,
      owner: execution.owner,
      workflow: execution.workflow,
      executionId: id,
      ...(toolCall && typeof waiting['step'] === 'string' ? { step: waiting['step'] } : {}),
    } as const;
    if (refusal) {
      await this.audit.record({
        ...base,
        decision: 'deny',
        reason: refusal.message,
        ...refusal.audit,
      });
      throw refusal.error;
    }
    if (args !== undefined) {
      if (!toolCall || verdict !== 'approve') {
        throw new ValidationError('only the approval of a tool call takes arguments', {
          field: 'arguments',
          constraint: toolCall ? 'approve' : 'tool_call',
        });
      }
      checkToolArguments(waiting['input_schema'], args);
    }
    const by =
      principal.name === principal.subject
        ? principal.subject
        : `${principal.name} (${principal.subject})`;
    const data = {
      ...(verdict === 'approve' ? { approved_by: by } : { rejected_by: by }),
      ...(comment !== undefined ? { comment } : {}),
    };
    const target = { kind: waiting.kind, ...(owner !== undefined ? { owner } : {}) };
    const decision = toolCall
      ? await this.runtime.resumeExecution(id, {
          ...target,
          phase: verdict === 'approve' ? 'granted' : 'rejected',
          data: { tool: waiting['tool'], ...data, ...(args !== undefined ? { edited: true } : {}) },
          record: {
            decision:
              verdict === 'approve'
                ? {
                    verdict,
                    by,
                    ...(args !== undefined ? { arguments: args } : {}),
                    ...(comment !== undefined ? { comment } : {}),
                  }
                : { verdict, by, reason: comment ?? 'no reason given' },
          },
        })
      : verdict === 'approve'
        ? await this.runtime.resumeExecution(id, { ...target, data })
        : await this.runtime.endWaiting(id, {
            ...target,
            message: `the execution was rejected by ${by}`,
            details: data,
          });
    if (!decision.won) throw notWaiting(decision.execution);
    const outcome = verdict === 'approve' ? 'approved' : 'rejected';
    const what = toolCall ? `tool call ${String(waiting['tool'])} ${outcome}` : outcome;
    await this.audit.record({
      ...base,
      decision: outcome,
      reason: comment !== undefined ? `${what}: ${comment}` : what,
      required: { roles: waiting.approvers },
    });
    if (args !== undefined) {
      await this.audit.record({
        ...base,
        action: 'tool_call.edit',
        decision: 'approved',
        reason: `arguments of tool ${String(waiting['tool'])} edited: ${JSON.stringify(args).slice(0, 2000)}`,
        required: { roles: waiting.approvers },
      });
    }
    return decision.execution;
  }

  /** Why `principal` may not decide `execution`; undefined when it may. */
  private mayDecide(
    principal: Principal,
    execution: StoredExecution,
  ):
    | {
        message: string;
        error: ForbiddenError;
        audit: { required: { roles: string[] }; missing: { roles: string[] } };
      }
    | undefined {
    const waiting = approvalOf(execution);
    if (!waiting) return undefined;
    const approvers = waiting.approvers;
    const isApprover =
      approvers.length === 0
        ? principal.admin
        : approvers.some((role) => principal.roles.includes(role));
    if (!isApprover) {
      const message =
        approvers.length === 0
          ? `execution ${execution.id} names no approvers: only an admin key may decide it`
          : `deciding execution ${execution.id} needs one of the approver roles ${approvers.join(', ')}`;
      return {
        message,
        error: new ForbiddenError(message, {
          reason: 'not_approver',
          missing_roles: approvers,
          missing_permissions: [],
        }),
        audit: { required: { roles: approvers }, missing: { roles: approvers } },
      };
    }
    const starter = waiting.requested_by;
    if (
      !this.runtime.options.allowSelfApproval &&
      starter !== undefined &&
      starter.kind === principal.kind &&
      starter.subject === principal.subject
    ) {
      const message = `execution ${execution.id} was started by you: another approver must decide it (separation of duties)`;
      return {
        message,
        error: new ForbiddenError(message, {
          reason: 'own_run',
          missing_roles: [],
          missing_permissions: [],
        }),
        audit: { required: { roles: approvers }, missing: { roles: [] } },
      };
    }
    return undefined;
  }
}

/** What a run waiting for approval keeps in `waiting_for`. */
function approvalOf(
  execution: StoredExecution,
): (WaitingFor & { approvers: string[]; requested_by?: RequestedBy | undefined }) | undefined {
  const waiting = execution.waiting_for;
  if (execution.status !== 'waiting' || !waiting || !DECIDED_KINDS.has(waiting.kind)) {
    return undefined;
  }
  const approvers = Array.isArray(waiting['approvers'])
    ? (waiting['approvers'] as unknown[]).filter((r): r is string => typeof r === 'string')
    : [];
  return {
    ...waiting,
    approvers,
    requested_by: waiting['requested_by'] as RequestedBy | undefined,
  };
}

/**
 * Whose waiting runs a caller lists and decides: its owner's; an admin key (the server
 * operator's) every owner's (undefined).
 */
function decidableOwner(principal: Principal): string | undefined {
  return principal.admin ? undefined : principal.owner;
}

function notWaiting(execution: StoredExecution): ConflictError {
  return new ConflictError(
    `execution ${execution.id} does not wait for approval: it is ${execution.status}${execution.status === 'waiting' ? ` for ${execution.waiting_for?.kind}` : ''} (decided or ended already)`,
    { execution_id: execution.id, status: execution.status },
  );
}

function positionOf(execution: StoredExecution): { created_at: string; id: string } {
  return { created_at: execution.created_at, id: execution.id };
}

/** Writes the end of an approval nobody gave in time to the audit log (other waits: nothing). */
export async function auditExpiry(audit: AuditLog, execution: StoredExecution): Promise<void> {
  const waiting = execution.waiting_for;
  if (!DECIDED_KINDS.has(waiting?.kind ?? '')) return;
  const by = waiting!['requested_by'] as RequestedBy | undefined;
  await audit.record({
    subject: by?.subject ?? execution.owner,
    credential: (by?.kind as Principal['kind'] | undefined) ?? 'local',
    owner: execution.owner,
    action: 'approval.expire',
    decision: 'expired',
    reason:
      waiting!.kind === TOOL_CALL_WAIT
        ? `no approver decided on tool call ${String(waiting!['tool'])} before ${waiting!.expires_at}: rejected as expired`
        : `no approver decided before ${waiting!.expires_at}`,
    ...(typeof waiting!['step'] === 'string' ? { step: waiting!['step'] } : {}),
    workflow: execution.workflow,
    executionId: execution.id,
  });
}
