import { isDeepStrictEqual } from 'node:util';
import { deploymentKey, type Clock, type DeployerSnapshot, type WorkflowLock } from '@weft/core';
import type { TriggerLogger } from '../triggers/logger.js';
import { auditAllowed } from './change-audit.js';
import type { Deployed, Prepared } from './deploy-plan.js';
import type { DeployScope } from './deploy-prepare.js';
import { guardOf } from './guard.js';
import { pluginReferences } from './plugin-refs.js';

/** What committing a deployment also needs of the service. */
export interface CommitScope extends DeployScope {
  clock: Clock;
  logger: TriggerLogger;
  /** Stored revisions this process could not serve (a deployment served now is forgotten). */
  failed: Map<string, number>;
}

/**
 * Stores a prepared definition (unless equal to the active revision: same definition, source
 * and deployer) and serves it. Audited first, for every deploy by a caller and every new
 * revision of the workflows directory.
 */
export async function commitDeploy(
  scope: CommitScope,
  { valid, previous, activation, warnings, required }: Prepared,
  source: string,
  snapshot: DeployerSnapshot | null,
  text?: string,
  lock?: WorkflowLock,
): Promise<Deployed> {
  const { options, owner, deployer } = scope;
  const workflow = valid.workflow;
  const key = deploymentKey(owner, workflow.name);
  const deployedBy = deployer?.owner ?? null;
  const unchanged =
    previous !== undefined &&
    previous.source === source &&
    previous.deployed_by === deployedBy &&
    isDeepStrictEqual(previous.deployer, snapshot) &&
    isDeepStrictEqual(previous.definition, valid.raw) &&
    isDeepStrictEqual(previous.lock, lock);
  // Every deploy by a caller is audited, and every new revision of the workflows directory,
  // before it is stored: nothing is deployed unrecorded.
  if (deployer || !unchanged) {
    const revision = unchanged
      ? previous.revision
      : ((await options.store.history(owner, workflow.name))[0]?.revision ?? 0) + 1;
    await auditAllowed(options.audit, {
      action: 'workflow.deploy',
      principal: scope.actingAs(),
      owner,
      workflow: workflow.name,
      what: unchanged ? `revision ${revision} kept (unchanged)` : `revision ${revision} deployed`,
      guard: previous && guardOf(previous),
      by: deployer ?? undefined,
      required,
    });
  }
  const record = unchanged
    ? previous
    : await options.store.put({
        owner,
        name: workflow.name,
        version: workflow.version,
        definition: valid.raw,
        plugins: pluginReferences(workflow),
        source,
        ...(text !== undefined ? { source_text: text } : {}),
        ...(lock !== undefined ? { lock } : {}),
        deployed_by: deployedBy,
        deployer: snapshot,
        deployed_at: new Date(scope.clock.now()).toISOString(),
      });
  await scope.activations.activate(activation, record);
  scope.failed.delete(key);
  if (!unchanged) {
    scope.logger.info(
      { workflow: workflow.name, owner, revision: record.revision, source },
      'workflow deployed',
    );
  }
  return {
    record,
    previousVersion: previous?.version ?? null,
    webhooks: options.webhooks.routesOf(key),
    warnings,
    dryRun: false,
  };
}
