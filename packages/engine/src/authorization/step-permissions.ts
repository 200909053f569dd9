import { ForbiddenError, missingGrants } from '@weft/core';
import type { StepDefinition, WorkflowDefinition } from '../model.js';
import type { RunInterceptor, StepCall } from '../run/interceptors.js';

/** A step refused by {@link stepPermissions}, as its `onDeny` hears it. */
export interface StepRefusal {
  call: StepCall;
  required: string[];
  missing: string[];
}

/** Options of {@link stepPermissions}. */
export interface StepPermissionsOptions {
  /**
   * Hears each refusal before the step fails (the audit log). A rejection fails the step with
   * its error instead: a refusal that cannot be recorded is still a refusal.
   */
  onDeny?: (refusal: StepRefusal) => void | Promise<void>;
}

/**
 * The interceptor that checks a step's `authorization.permissions` just before the step runs
 * (after its condition), against the run's principal: a step whose principal lacks one fails
 * with `FORBIDDEN` (`details.missing_permissions`) and does not run; `continue_on_error`
 * applies. A run without a principal lacks every permission (fail closed). Steps without the
 * block pass at the cost of one property read.
 */
export function stepPermissions(options: StepPermissionsOptions = {}): RunInterceptor {
  return {
    name: 'step-permissions',
    async step(call, next) {
      const required = call.step.definition.authorization?.permissions;
      if (required === undefined || required.length === 0) return next();
      const principal = call.run.principal;
      const missing = principal
        ? missingGrants(principal, { permissions: required }).missing_permissions
        : [...required];
      if (missing.length === 0) return next();
      await options.onDeny?.({ call, required: [...required], missing });
      throw new ForbiddenError(
        principal
          ? `step "${call.step.path}" needs the permissions ${missing.join(', ')}`
          : `step "${call.step.path}" needs the permissions ${missing.join(', ')} and the run has no identity`,
        {
          reason: principal ? 'missing_grants' : 'no_identity',
          step: call.step.path,
          missing_roles: [],
          missing_permissions: missing,
        },
      );
    },
  };
}

const stepChecks = new WeakMap<WorkflowDefinition, boolean>();

/**
 * Whether any step of these workflows (parallel children included) sets
 * `authorization.permissions`, i.e. whether a run of them needs {@link stepPermissions}.
 * Remembered per definition object.
 */
export function needsStepPermissions(workflows: readonly WorkflowDefinition[]): boolean {
  for (const workflow of workflows) {
    let needs = stepChecks.get(workflow);
    if (needs === undefined) stepChecks.set(workflow, (needs = anyStepPermissions(workflow.steps)));
    if (needs) return true;
  }
  return false;
}

function anyStepPermissions(steps: readonly StepDefinition[]): boolean {
  for (const step of steps) {
    if ((step.authorization?.permissions.length ?? 0) > 0) return true;
    if (Array.isArray(step.parallel) && anyStepPermissions(step.parallel)) return true;
  }
  return false;
}
