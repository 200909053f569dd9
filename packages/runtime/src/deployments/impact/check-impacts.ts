import type { DeployImpact } from '@weft/core';
import type { DeployOptions, Prepared } from '../deploy-plan.js';
import type { DeploymentServiceOptions } from '../deployment-options.js';
import { gateImpact, impactOf, type ImpactScope } from './impact-gate.js';

/**
 * The impact of each prepared definition on the work in progress; for a real deploy by a
 * caller, refuses them all (409, nothing deployed) when one is breaking without `force`, and
 * audits a forced one. The workflows directory is not refused (it has no `force`): its files
 * are the operator's, and its impact is not computed.
 */
export async function checkImpacts(
  scope: ImpactScope,
  options: DeploymentServiceOptions,
  prepared: readonly Prepared[],
  deploy: DeployOptions,
): Promise<(DeployImpact | undefined)[]> {
  // The workflows directory's deploys are neither refused nor answered: nothing to read.
  if (deploy.dryRun !== true && !scope.deployer) return prepared.map(() => undefined);
  const impacts: DeployImpact[] = [];
  for (const item of prepared) impacts.push(await impactOf(scope, options.impact, item));
  if (deploy.dryRun === true || !scope.deployer) return impacts;
  for (const [i, item] of prepared.entries()) {
    await gateImpact(impacts[i]!, item.valid.workflow.name, deploy.force === true, {
      log: options.audit,
      principal: scope.actingAs(),
      owner: scope.owner,
    });
  }
  return impacts;
}
