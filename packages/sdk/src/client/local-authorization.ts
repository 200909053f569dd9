import { CanceledError, ForbiddenError, TimeoutError, type Principal } from '@weft/core';
import {
  checkWorkflowAuthorization,
  forbiddenError,
  stepPermissions,
  type AuthorizationCheck,
  type RunInterceptor,
  type StepDefinition,
  type WorkflowDefinition,
  resolveInputs,
} from '@weft/engine';
import type { LocalAudit } from './local-audit.js';

/** What {@link ApproveRun} is asked: the run waiting for approval and who starts it. */
export interface ApprovalRequest {
  /** The workflow to run (its name and version). */
  workflow: { name: string; version: string };
  /** The roles the block names as approvers (`authorization.approval.approvers`). */
  approvers: string[];
  /** How long the run waits for the answer (`approval.timeout`, default one day). */
  timeoutSeconds: number;
  /** Who starts the run (`WeftOptions.identity`). */
  principal: Principal;
  /** Fires when the wait ends without an answer (timeout, or the run's `signal`). */
  signal: AbortSignal;
}

/**
 * An answer of {@link ApproveRun}: `true`/`false`, or the decision with who took it (default:
 * the run's principal) and why; a rejection's `by` and `comment` become `details.rejected_by`
 * and `details.comment` of its `CANCELED` error, as on the server.
 */
export type ApprovalAnswer = boolean | { approved: boolean; by?: string; comment?: string };

/**
 * Asked before a local run of a workflow whose `authorization.approval.required` is true, once
 * its caller is authorized: resolve `true` to run it, `false` to reject it (`CANCELED`).
 */
export type ApproveRun = (request: ApprovalRequest) => ApprovalAnswer | Promise<ApprovalAnswer>;

/** The check of a run no `authorization` block applies to. */
const UNGUARDED: AuthorizationCheck = Object.freeze({
  guarded: false,
  refusal: undefined,
  approval: undefined,
});

/** Longest timer Node keeps (about 24.8 days); longer approval timeouts wait this long. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** What {@link authorizeRun} needs besides the workflow. */
export interface RunAuthorizationContext {
  /** Who runs it (`WeftOptions.identity`). */
  identity: Principal | undefined;
  /** Who approves it (`WeftOptions.approve`). */
  approve: ApproveRun | undefined;
  /** Finds the subworkflows it calls. */
  resolve: Resolve;
  /** The run's signal: ends a wait for approval. */
  signal: AbortSignal | undefined;
  /** Audits the refusals (logged and given to `onAudit`). */
  audit?: LocalAudit | undefined;
}

/**
 * Authorizes a local run before any step: {@link authorizeLocalRun} (throws `FORBIDDEN`, audited
 * by `context.audit` first), then
 * the approval the workflow asks for, if its inputs are valid (bad inputs fail the run anyway:
 * they are not worth an approver's time), by {@link approveLocalRun}. Gives the interceptor the
 * run needs for step-level permissions (undefined when no step asks any).
 */
export async function authorizeRun(
  workflow: WorkflowDefinition,
  inputs: Readonly<Record<string, unknown>>,
  context: RunAuthorizationContext,
): Promise<RunInterceptor | undefined> {
  const scope = runScope(workflow, context.resolve);
  const check = scope.guarded
    ? checkWorkflowAuthorization(workflow, context.identity, context.resolve)
    : UNGUARDED;
  if (check.refusal) {
    await context.audit?.startDenied(workflow.name, check.refusal, context.identity);
    throw forbiddenError(check.refusal, context.identity !== undefined, workflow.name);
  }
  if (check.approval && inputsValid(workflow, inputs)) {
    await approveLocalRun(workflow, check, context.identity, context.approve, context.signal);
  }
  if (!scope.stepPermissions) return undefined;
  return context.audit ? context.audit.stepPermissions() : STEP_PERMISSIONS;
}

/** Whether `inputs` are valid for `workflow` (the run reports why when they are not). */
function inputsValid(
  workflow: WorkflowDefinition,
  inputs: Readonly<Record<string, unknown>>,
): boolean {
  try {
    resolveInputs(workflow, inputs);
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks the `authorization` blocks of a local run of `workflow` and of the subworkflows it may
 * call (resolved by `resolve`) against `principal`: throws the `FORBIDDEN` error naming what is
 * missing (`details.missing_roles`, `details.missing_permissions`; `reason: "no_identity"` without
 * a principal), after auditing it with `audit`. Gives the check, with the approval the workflow asks
 * for.
 */
export function authorizeLocalRun(
  workflow: WorkflowDefinition,
  principal: Principal | undefined,
  resolve: Resolve,
  scope: RunScope = runScope(workflow, resolve),
  audit?: LocalAudit,
): AuthorizationCheck {
  if (!scope.guarded) return UNGUARDED;
  const check = checkWorkflowAuthorization(workflow, principal, resolve);
  if (check.refusal) {
    // Logged now; `onAudit` is not waited for (this check is synchronous).
    void audit?.startDenied(workflow.name, check.refusal, principal);
    throw forbiddenError(check.refusal, principal !== undefined, workflow.name);
  }
  return check;
}

/**
 * Asks `approve` for the approval `check` requires (nothing when it requires none). Throws
 * `FORBIDDEN` (`details.reason: "approval_required"`) when there is no one to ask, `CANCELED`
 * (`details.rejected_by`) on a rejection, `TIMEOUT` when no answer came within the block's
 * `timeout`, and `CANCELED` when `signal` fires first.
 */
export async function approveLocalRun(
  workflow: WorkflowDefinition,
  check: AuthorizationCheck,
  principal: Principal | undefined,
  approve: ApproveRun | undefined,
  signal?: AbortSignal,
): Promise<void> {
  const approval = check.approval;
  if (!approval) return;
  const approvers = approval.approvers.join(', ') || 'anyone';
  if (!approve || !principal) {
    throw new ForbiddenError(
      `workflow "${workflow.name}" requires approval (approvers: ${approvers}) and this run has no one to ask: pass approve in the Weft options`,
      {
        reason: 'approval_required',
        workflow: workflow.name,
        approvers: approval.approvers,
        timeout_seconds: approval.timeoutSeconds,
      },
    );
  }
  const controller = new AbortController();
  const timeoutMs = approval.timeoutSeconds * 1000;
  const timer = setTimeout(
    () => {
      controller.abort(
        new TimeoutError(
          `workflow "${workflow.name}" was not approved within ${approval.timeoutSeconds} s`,
          { timeout_ms: timeoutMs, elapsed_ms: timeoutMs, reason: 'approval_timeout' },
        ),
      );
    },
    Math.min(timeoutMs, MAX_TIMER_MS),
  );
  const onCancel = () =>
    controller.abort(
      new CanceledError(`the run of workflow "${workflow.name}" was canceled before approval`, {
        canceled_at: new Date().toISOString(),
      }),
    );
  if (signal?.aborted) onCancel();
  else signal?.addEventListener('abort', onCancel, { once: true });
  let answer: ApprovalAnswer;
  try {
    answer = await Promise.race([
      Promise.resolve().then(() =>
        approve({
          workflow: { name: workflow.name, version: workflow.version },
          approvers: [...approval.approvers],
          timeoutSeconds: approval.timeoutSeconds,
          principal,
          signal: controller.signal,
        }),
      ),
      whenAborted(controller.signal),
    ]);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onCancel);
  }
  const approved = typeof answer === 'boolean' ? answer : answer.approved === true;
  if (approved) return;
  const decision: { by?: string; comment?: string } = typeof answer === 'object' ? answer : {};
  const by = decision.by ?? principal.subject;
  throw new CanceledError(`the run of workflow "${workflow.name}" was rejected by ${by}`, {
    canceled_at: new Date().toISOString(),
    reason: 'approval_rejected',
    workflow: workflow.name,
    rejected_by: by,
    ...(decision.comment !== undefined ? { comment: decision.comment } : {}),
  });
}

/** A promise that rejects with the signal's reason when it fires. */
function whenAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason as Error);
    else signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
  });
}

/** What a local run of a workflow involves, for its authorization: found in one walk. */
export interface RunScope {
  /** Whether the workflow or a subworkflow it may call has an enabled `authorization` block. */
  guarded: boolean;
  /** Whether a step of any of them has `authorization.permissions`. */
  stepPermissions: boolean;
}

/**
 * Walks `workflow` and the subworkflows it may call (resolved by `resolve`, each once, parallel
 * blocks included) without allocating per step: a run of a workflow without any authorization
 * costs this walk and nothing else.
 */
export function runScope(workflow: WorkflowDefinition, resolve: Resolve): RunScope {
  const scope: RunScope = { guarded: false, stepPermissions: false };
  visitWorkflow(workflow, resolve, scope, []);
  return scope;
}

/** Finds a subworkflow by name and version range. */
type Resolve = (name: string, range: string | undefined) => WorkflowDefinition | undefined;

function visitWorkflow(
  workflow: WorkflowDefinition,
  resolve: Resolve,
  scope: RunScope,
  seen: WorkflowDefinition[],
): void {
  if (seen.includes(workflow)) return;
  seen.push(workflow);
  if (workflow.authorization !== undefined && workflow.authorization.enabled !== false)
    scope.guarded = true;
  visitSteps(workflow.steps, resolve, scope, seen);
}

function visitSteps(
  steps: readonly StepDefinition[],
  resolve: Resolve,
  scope: RunScope,
  seen: WorkflowDefinition[],
): void {
  for (const step of steps) {
    if (step.authorization !== undefined && step.authorization.permissions.length > 0)
      scope.stepPermissions = true;
    if (Array.isArray(step.parallel)) visitSteps(step.parallel, resolve, scope, seen);
    else if (step.type === 'workflow' && step.workflow !== undefined) {
      const called = resolve(step.workflow, step.version);
      if (called) visitWorkflow(called, resolve, scope, seen);
    }
  }
}

/** The step-permissions interceptor of runs whose {@link RunScope} needs it. */
export const STEP_PERMISSIONS: RunInterceptor = stepPermissions();
