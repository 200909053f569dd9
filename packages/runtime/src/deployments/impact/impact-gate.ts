import { ConflictError, type DeployImpact, type Principal } from '@weft/core';
import type { WorkflowDefinition } from '@weft/engine';
import type { AuditLog } from '../../audit/audit-log.js';
import { auditedCaller } from '../change-audit.js';
import type { Prepared } from '../deploy-plan.js';
import type { DeployScope } from '../deploy-prepare.js';
import { validateDefinition } from '../parse-definition.js';
import { deployImpact, isBreaking, type ImpactSources } from './impact.js';

/** Most executions an audit entry or an error message names. */
const NAMED = 10;

/** What the impact of a prepared deployment reads of the deployment service. */
export interface ImpactScope extends DeployScope {
  now(): number;
}

/** The impact of deploying a prepared definition on the work in progress (reads only). */
export function impactOf(
  scope: ImpactScope,
  sources: ImpactSources | undefined,
  { valid, previous }: Prepared,
): Promise<DeployImpact> {
  return deployImpact(sources, {
    owner: scope.owner,
    previous: previous && {
      record: previous,
      workflow: previousWorkflow(scope, previous.name, previous.definition),
    },
    next: { workflow: valid.workflow, raw: valid.raw },
    nowMs: scope.now(),
  });
}

/**
 * Refuses a deploy whose impact is breaking (an execution waiting for approval meets a change
 * of its remaining steps) with 409 `CONFLICT`, the impact in `details`, unless `force`; a
 * forced one is audited first (`workflow.deploy`, who, and which executions' changes it
 * overrode). Nothing is changed by a refusal.
 */
export async function gateImpact(
  impact: DeployImpact,
  name: string,
  force: boolean,
  audit: { log: AuditLog | undefined; principal: Principal | undefined; owner: string },
): Promise<void> {
  if (!impact.breaking) return;
  const waiting = impact.executions.affected.filter(isBreaking);
  const named = waiting
    .slice(0, NAMED)
    .map((e) => {
      const brought = e.changes.filter((c) => c.introduced);
      return `${e.execution_id} (${brought.map((c) => c.detail).join('; ')})`;
    })
    .join(', ');
  const more = waiting.length > NAMED ? ` and ${waiting.length - NAMED} more` : '';
  if (!force) {
    throw new ConflictError(
      `not deployed: the new revision of "${name}" changes the remaining steps of ${waiting.length} execution${waiting.length === 1 ? '' : 's'} waiting for approval: ${named}${more}. ` +
        'They keep the revision they started on; deploy with force=true (weft workflow deploy --force) to deploy anyway',
      {
        reason: 'breaking_impact',
        field: 'force',
        constraint: 'breaking_impact',
        workflow: name,
        executions: waiting,
        impact,
      },
    );
  }
  await audit.log?.record({
    ...auditedCaller(audit.principal, audit.owner),
    action: 'workflow.deploy',
    decision: 'allow',
    reason: `forced (force=true) over breaking changes for ${waiting.length} waiting execution${waiting.length === 1 ? '' : 's'}: ${named}${more}`,
    workflow: name,
  });
}

/** The deployed revision's definition, loaded: the served one, else validated again. */
function previousWorkflow(
  scope: ImpactScope,
  name: string,
  raw: Record<string, unknown>,
): WorkflowDefinition {
  const served = scope.workflowOf(name, scope.owner);
  if (served) return served;
  const known = typeof raw['name'] === 'string' ? [raw['name']] : [];
  const steps = (raw['steps'] ?? []) as WorkflowDefinition['steps'];
  try {
    return validateDefinition(raw, known, scope.options.detectors).workflow;
  } catch {
    // Stored by an older server under other rules: compared as stored.
    return { ...(raw as unknown as WorkflowDefinition), inputs: {}, steps };
  }
}
