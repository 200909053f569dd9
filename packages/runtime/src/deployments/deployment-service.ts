import {
  deployerSnapshot,
  deploymentKey,
  keyPrincipal,
  parseDeploymentKey,
  NotFoundError,
  systemClock,
  type Clock,
  type DeployerSnapshot,
  type DeploymentRecord,
  type PluginUsage,
  type Principal,
} from '@weft/core';
import { isPlainObject, type WorkflowDefinition } from '@weft/engine';
import { silentLogger, type TriggerLogger } from '../triggers/logger.js';
import type { PendingRecord } from '../triggers/start-execution.js';
import { Activations } from './activations.js';
import { auditAllowed } from './change-audit.js';
import { commitDeploy, type CommitScope } from './deploy-commit.js';
import {
  dryRunAnswer,
  type Deployed,
  type Deployer,
  type DeployOptions,
  type Prepared,
} from './deploy-plan.js';
import { prepareDeploy, validateDeploy, type Validated } from './deploy-prepare.js';
import type { DeploymentServiceOptions } from './deployment-options.js';
import { checkGuard, guardOf } from './guard.js';
import { checkImpacts } from './impact/check-impacts.js';
import { pluginUsage } from './plugin-refs.js';
import { reconcileDeployments, type Reconciled } from './reconcile.js';

/**
 * Deploys workflows: validates a definition with the engine, compiles its triggers (secrets,
 * routes, schedules, event sources) and refuses it before anything changes when one fails or a
 * webhook route belongs to another workflow; then stores the revision and serves its triggers.
 * {@link reconcile} serves what other replicas deployed and stops what they undeployed.
 *
 * Names are per owner (workspace): every deployment is (owner, name), and a name is always
 * resolved within the caller's owner; another owner's deployment of the same name is another
 * deployment, never seen, run, changed or refused because of it. Webhook paths are the one
 * namespace shared by every owner (they are URLs): first come, first served.
 */
export class DeploymentService {
  private readonly clock: Clock;
  private readonly logger: TriggerLogger;
  private readonly activations: Activations;
  /** Stored revisions this process could not serve, by deployment key (not retried until they change). */
  private readonly failed = new Map<string, number>();
  /** Serialises deployments so route collision checks and activation never interleave. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: DeploymentServiceOptions) {
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger;
    this.activations = new Activations({
      webhooks: options.webhooks,
      scheduler: options.scheduler,
      events: options.events,
      secrets: options.secrets,
      ...(options.maxPayloadSize !== undefined ? { maxPayloadSize: options.maxPayloadSize } : {}),
    });
    this.usage = pluginUsage(
      options.store,
      options.resolvePluginVersion,
      options.resolveAgentVersions,
    );
  }

  /**
   * The registry's "in use" check for unpublish: the deployments pinning a version, those
   * referencing the plugin bare when it is the latest version at the time of the check, and
   * (with `resolveAgentVersions`) those with an agent step whose range resolves to it.
   */
  readonly usage: PluginUsage;

  /** The service's time, ms since the epoch (schedules' next fires are computed from it). */
  now(): number {
    return this.clock.now();
  }

  /** Deploys one definition (the object inside `workflows`). */
  async deploy(
    raw: unknown,
    source: string,
    deployedBy: string | null | Deployer,
    expectedName?: string,
    options: DeployOptions = {},
  ): Promise<Deployed> {
    const deployed = await this.deployAll([raw], source, deployedBy, expectedName, options);
    return deployed[0]!;
  }

  /**
   * Deploys the definitions of one file together: every one is validated and compiled first, and
   * none is deployed when one fails (the earlier deployments keep serving). The deployer must
   * pass the authorization of each (and of what each may call); with `strict`, a warning refuses
   * them all. A definition equal to the active one of its name (same source and deployer, with
   * the same grants) adds no revision.
   */
  deployAll(
    raws: readonly unknown[],
    source: string,
    deployedBy: string | null | Deployer,
    expectedName?: string,
    options: DeployOptions = {},
  ): Promise<Deployed[]> {
    const deployer = typeof deployedBy === 'string' ? { owner: deployedBy } : deployedBy;
    return this.serialised(async () => {
      const siblings = raws.map((raw) => (isNamed(raw) ? raw.name : undefined));
      const scope = this.scopeOf(deployer);
      // A subworkflow step calls a workflow of the same workspace only.
      const home = scope.owner;
      const known = [...new Set([...this.namesOf(home), ...siblings.filter(isString)])];
      // Every definition is checked before any is stored or served.
      const valid: Validated[] = [];
      for (const raw of raws) valid.push(await validateDeploy(scope, raw, known, expectedName));
      const prepared: Prepared[] = [];
      for (const item of valid) {
        prepared.push(await prepareDeploy(scope, item, valid, source, options.strict === true));
      }
      const impacts = await checkImpacts(
        { ...scope, now: () => this.clock.now() },
        this.options,
        prepared,
        options,
      );
      const snapshot = this.snapshotOf(deployer);
      const deployed: Deployed[] = [];
      for (const [i, item] of prepared.entries()) {
        const answer =
          options.dryRun === true
            ? dryRunAnswer(item, source, home, deployer, snapshot, this.clock.now())
            : await commitDeploy(scope, item, source, snapshot, options.text);
        // A real deploy answers its impact only when it was forced over a breaking one.
        const impact = impacts[i];
        const shown = impact && (options.dryRun === true || impact.breaking);
        deployed.push(shown ? { ...answer, impact } : answer);
      }
      return deployed;
    });
  }

  /**
   * Undeploys the workflow `name` of `by`'s owner (without `by`: of `owner`, default the
   * workflows directory's): its triggers stop, its history stays. Another owner's deployment of
   * that name is untouched; none of the caller's is `NOT_FOUND`. A guarded current revision
   * needs its block's grants ({@link checkGuard}). Audited (`workflow.delete`) before anything
   * changes.
   */
  undeploy(name: string, by?: Deployer, owner?: string): Promise<void> {
    return this.serialised(async () => {
      const home = by?.owner ?? owner ?? this.ownerFor(null);
      const current = await this.options.store.get(home, name);
      if (!current) throw unknownName(name);
      const guard = by
        ? await checkGuard(current, by, 'workflow.delete', this.options.audit)
        : guardOf(current);
      await auditAllowed(this.options.audit, {
        action: 'workflow.delete',
        principal: by ? by.principal : this.options.directoryPrincipal?.(),
        owner: home,
        workflow: name,
        what: `revision ${current.revision} undeployed`,
        guard,
        by,
        required: guard,
      });
      if (!(await this.options.store.remove(home, name))) throw unknownName(name);
      await this.activations.deactivate(deploymentKey(home, name), true);
      this.logger.info({ workflow: name, owner: home }, 'workflow undeployed');
    });
  }

  /** Serves the triggers of every stored deployment (server start); failures are logged. */
  async restore(): Promise<void> {
    await this.reconcile();
  }

  /**
   * Serves what the store holds now: loads deployments whose revision changed (made by another
   * replica) and stops those no longer stored. Replicas call it every few seconds.
   */
  reconcile(): Promise<Reconciled> {
    return this.serialised(() =>
      reconcileDeployments(
        this.options.store,
        this.activations,
        this.logger,
        this.failed,
        this.options.detectors,
      ),
    );
  }

  /**
   * The active deployments of `owner`, by name; without it, every owner's (the server's own
   * bookkeeping: the workflows directory, retention).
   */
  async list(owner?: string): Promise<DeploymentRecord[]> {
    return this.options.store.list(owner);
  }

  /** The active deployment of a name of `owner`. */
  async get(owner: string, name: string): Promise<DeploymentRecord | undefined> {
    return this.options.store.get(owner, name);
  }

  /**
   * Every revision of a name of `owner`, newest first (another owner's revisions of the same
   * name are its own).
   */
  async history(owner: string, name: string): Promise<DeploymentRecord[]> {
    return this.options.store.history(owner, name);
  }

  /** Undeploys every workflow deployed from `source` (a removed file), of whichever owner. */
  async undeploySource(source: string): Promise<string[]> {
    const gone = (await this.options.store.list()).filter((r) => r.source === source);
    for (const record of gone) await this.undeploy(record.name, undefined, record.owner);
    return gone.map((r) => r.name);
  }

  /**
   * The deployed workflows that set `execution.retention_days`, with their owner: retention
   * keeps their ended executions for that long (only those of the deployment's owner, so a
   * deployment never shortens the history of another owner's workflow of the same name).
   */
  async retentionOverrides(): Promise<{ owner: string; workflow: string; days: number }[]> {
    const overrides: { owner: string; workflow: string; days: number }[] = [];
    for (const record of await this.options.store.list()) {
      const execution = record.definition['execution'];
      const days = isPlainObject(execution) ? execution['retention_days'] : undefined;
      if (typeof days === 'number' && Number.isInteger(days) && days >= 1) {
        overrides.push({ owner: record.owner, workflow: record.name, days });
      }
    }
    return overrides;
  }

  /**
   * The active definition of the deployed workflow `name` of `owner`: a subworkflow step never
   * reaches across workspaces.
   */
  workflowOf(name: string, owner: string): WorkflowDefinition | undefined {
    return this.activations.workflow(deploymentKey(owner, name));
  }

  /** Names of the active deployments of `owner`. */
  private namesOf(owner: string): string[] {
    return this.activations
      .keys()
      .map(parseDeploymentKey)
      .filter((key) => key.owner === owner)
      .map((key) => key.name);
  }

  /** Served webhooks of the workflow `name` of `owner`, as `METHOD /hooks/path`. */
  webhooksOf(owner: string, name: string): string[] {
    return this.options.webhooks.routesOf(deploymentKey(owner, name));
  }

  /**
   * The owner executions of a deployment (by its key, `owner/name`) run for when no caller
   * started them (webhooks, schedules, events): the deployment's owner.
   */
  ownerOf(key: string): string {
    return this.activations.owner(key) ?? parseDeploymentKey(key).owner;
  }

  /**
   * The principal the runs of a deployment's triggers act as (by its key): its deployer as
   * recorded at deployment (roles and permissions then); for a deployment recorded without one,
   * its owner with no grants (a guarded workflow's runs are then refused).
   */
  actingPrincipal(key: string): Principal {
    const principal = this.activations.principal(key);
    if (principal) return principal;
    const owner = this.ownerOf(key);
    return keyPrincipal({ keyId: `owner:${owner}`, owner });
  }

  /**
   * Starts the deployed workflow `name` of the caller's owner by hand (`POST
   * /workflows/{name}/executions`; without a caller, of the workflows directory's owner); the
   * execution belongs to the caller, who polls it. None of that name in the caller's owner is
   * NOT_FOUND, whatever other owners deployed.
   */
  async runManually(
    name: string,
    inputs: Record<string, unknown>,
    caller?: Principal,
  ): Promise<PendingRecord> {
    const owner = caller?.owner ?? this.ownerFor(null);
    const workflow = this.activations.workflow(deploymentKey(owner, name));
    if (!workflow) throw unknownName(name);
    return this.options.start({
      workflow,
      inputs,
      trigger: { type: 'manual' },
      ...(caller ? { owner: caller.owner, keyId: caller.keyId, principal: caller } : {}),
    });
  }

  /** Stops every trigger (server shutdown). */
  async close(): Promise<void> {
    await this.options.scheduler.stop();
    await this.options.events.close();
  }

  /** The principal a deployment acts as: the caller's, or the workflows directory's. */
  private actingAs(deployer: Deployer | null): Principal | undefined {
    return deployer ? deployer.principal : this.options.directoryPrincipal?.();
  }

  /** What a deployment records of its deployer (null: no principal to record). */
  private snapshotOf(deployer: Deployer | null): DeployerSnapshot | null {
    const principal = this.actingAs(deployer);
    return principal ? deployerSnapshot(principal) : null;
  }

  /** What checking and committing a deployment by `deployer` read of this service. */
  private scopeOf(deployer: Deployer | null): CommitScope {
    return {
      options: this.options,
      activations: this.activations,
      deployer,
      owner: this.ownerFor(deployer),
      actingAs: () => this.actingAs(deployer),
      workflowOf: (name, owner) => this.workflowOf(name, owner),
      ownerOf: (key) => this.ownerOf(key),
      clock: this.clock,
      logger: this.logger,
      failed: this.failed,
    };
  }

  /** The workspace a deployment goes to: the caller's owner, or `defaultOwner`. */
  private ownerFor(deployer: Deployer | null): string {
    return deployer?.owner ?? this.options.defaultOwner ?? 'local';
  }

  private serialised<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

/** The `NOT_FOUND` of a name nobody deployed, also given for another owner's. */
function unknownName(name: string): NotFoundError {
  return new NotFoundError(`no deployed workflow is named "${name}"`, { name });
}

function isNamed(raw: unknown): raw is { name: unknown } {
  return typeof raw === 'object' && raw !== null && 'name' in raw;
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}
