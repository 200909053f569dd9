import { isDeepStrictEqual } from 'node:util';
import {
  deployerSnapshot,
  ForbiddenError,
  keyPrincipal,
  NotFoundError,
  systemClock,
  ValidationError,
  type Clock,
  type DeployerSnapshot,
  type DeploymentRecord,
  type DeploymentStore,
  type PluginUsage,
  type Principal,
  type SecretsProvider,
} from '@weft/core';
import type { WorkflowDefinition } from '@weft/engine';
import type { AuditLog } from '../audit/audit-log.js';
import type { EventRouter } from '../triggers/events/event-router.js';
import { silentLogger, type TriggerLogger } from '../triggers/logger.js';
import type { Scheduler } from '../triggers/schedule/scheduler.js';
import type { PendingRecord, StartExecution } from '../triggers/start-execution.js';
import type { WebhookTable } from '../triggers/webhook/webhook-table.js';
import { Activations, type Activation } from './activations.js';
import { authorizeDeploy } from './deploy-check.js';
import { libraryOf } from './library.js';
import { validateDefinition, type ValidDefinition } from './parse-definition.js';
import { pluginReferences, pluginUsage } from './plugin-refs.js';
import { reconcileDeployments, type Reconciled } from './reconcile.js';

/** What a deployment service works with. */
export interface DeploymentServiceOptions {
  store: DeploymentStore;
  webhooks: WebhookTable;
  scheduler: Scheduler;
  events: EventRouter;
  secrets: SecretsProvider;
  start: StartExecution;
  clock?: Clock;
  logger?: TriggerLogger;
  /** Largest webhook body of webhooks that set no maxPayloadSize. */
  maxPayloadSize?: number;
  /**
   * The registry's latest version of a plugin, read by the unpublish "in use" check: a bare
   * `plugin: <slug>` uses whatever version is latest when it runs.
   */
  resolvePluginVersion?: (slug: string) => Promise<string | undefined>;
  /**
   * Owner of the executions of workflows deployed without a key (`weft server --workflows DIR`).
   * Default `local`.
   */
  defaultOwner?: string;
  /**
   * What the workflows directory's deployments act as now (`WEFT_WORKFLOWS_ROLES`,
   * `WEFT_WORKFLOWS_PERMISSIONS`, permissions expanded by the access file in force): checked
   * against their authorization blocks and recorded as their deployer. Without it a guarded
   * workflow is refused there (fail closed).
   */
  directoryPrincipal?: () => Principal | undefined;
  /** Records the authorization decisions of deployments. Default: none recorded. */
  audit?: AuditLog;
  /**
   * Of the plugins a workflow (and the workflows it may call) uses, those this server cannot
   * run: each becomes a deployment warning. Default: none checked.
   */
  unavailablePlugins?: (
    workflow: WorkflowDefinition,
    library: readonly WorkflowDefinition[],
  ) => Promise<string[]>;
}

/**
 * Who deploys or changes a deployment: the owner of a key, whether it is an admin key, and the
 * caller's principal (checked against the workflow's authorization and recorded as its deployer;
 * without one, a guarded workflow is refused).
 */
export interface Deployer {
  owner: string;
  admin?: boolean;
  principal?: Principal;
}

/** How a deployment treats its warnings. */
export interface DeployOptions {
  /** Refuse (`VALIDATION`, nothing deployed) when a definition has warnings. */
  strict?: boolean;
  /** Check everything and deploy nothing. */
  dryRun?: boolean;
}

/** Answer of a deployment. */
export interface Deployed {
  /** The stored record; for a dry run, the record it would store. */
  record: DeploymentRecord;
  previousVersion: string | null;
  webhooks: string[];
  /** Validator warnings, then each plugin this server cannot run. */
  warnings: string[];
  /** True for a dry run (nothing stored or served). */
  dryRun: boolean;
}

/** A definition checked and compiled, ready to store and serve. */
interface Prepared {
  valid: ValidDefinition;
  previous: DeploymentRecord | undefined;
  activation: Activation;
  warnings: string[];
}

/**
 * Deploys workflows: validates a definition with the engine, compiles its triggers (secrets,
 * routes, schedules, event sources) and refuses it before anything changes when one fails or a
 * webhook route belongs to another workflow; then stores the revision and serves its triggers.
 * {@link reconcile} serves what other replicas deployed and stops what they undeployed.
 */
export class DeploymentService {
  private readonly clock: Clock;
  private readonly logger: TriggerLogger;
  private readonly activations: Activations;
  /** Stored revisions this process could not serve (not retried until they change). */
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
    this.usage = pluginUsage(options.store, options.resolvePluginVersion);
  }

  /**
   * The registry's "in use" check for unpublish: the deployments pinning a version, and those
   * referencing the plugin bare when it is the latest version at the time of the check.
   */
  readonly usage: PluginUsage;

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
      const known = [...new Set([...this.activations.names(), ...siblings.filter(isString)])];
      const valid: { valid: ValidDefinition; previous: DeploymentRecord | undefined }[] = [];
      for (const raw of raws) valid.push(await this.validate(raw, known, deployer, expectedName));
      const prepared: Prepared[] = [];
      for (const item of valid) {
        prepared.push(await this.prepare(item, valid, deployer, source, options.strict === true));
      }
      const snapshot = this.snapshotOf(deployer);
      const deployed: Deployed[] = [];
      for (const item of prepared) {
        deployed.push(
          options.dryRun === true
            ? this.dryRun(item, source, deployer, snapshot)
            : await this.commit(item, source, deployer, snapshot),
        );
      }
      return deployed;
    });
  }

  /**
   * Undeploys a workflow: its triggers stop, its history stays. With `by`, only its owner (or an
   * admin key) may.
   */
  undeploy(name: string, by?: Deployer): Promise<void> {
    return this.serialised(async () => {
      const current = by ? await this.options.store.get(name) : undefined;
      if (current && by) this.checkOwner(current, by, 'undeploy');
      if (!(await this.options.store.remove(name))) {
        throw new NotFoundError(`no deployed workflow is named "${name}"`, { name });
      }
      await this.activations.deactivate(name, true);
      this.logger.info({ workflow: name }, 'workflow undeployed');
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
      reconcileDeployments(this.options.store, this.activations, this.logger, this.failed),
    );
  }

  /** Every active deployment, by name; with `by`, only those it may see ({@link visibleTo}). */
  async list(by?: Deployer): Promise<DeploymentRecord[]> {
    const records = await this.options.store.list();
    return by ? records.filter((r) => this.visibleTo(r, by)) : records;
  }

  /** The active deployment of a name; with `by`, undefined when it may not see it. */
  async get(name: string, by?: Deployer): Promise<DeploymentRecord | undefined> {
    const record = await this.options.store.get(name);
    return record && (!by || this.visibleTo(record, by)) ? record : undefined;
  }

  /**
   * Whether `by` may see a deployment: an admin key sees all, any other key only its owner's
   * (those of the workflows directory belong to `defaultOwner`).
   */
  visibleTo(record: DeploymentRecord, by: Deployer): boolean {
    return by.admin === true || this.recordOwner(record) === by.owner;
  }

  /** Every revision of a name, newest first. */
  history(name: string): Promise<DeploymentRecord[]> {
    return this.options.store.history(name);
  }

  /** Undeploys every workflow deployed from `source` (a removed file). */
  async undeploySource(source: string): Promise<string[]> {
    const gone = (await this.options.store.list())
      .filter((r) => r.source === source)
      .map((r) => r.name);
    for (const name of gone) await this.undeploy(name);
    return gone;
  }

  /** The active definition of a deployed workflow. */
  workflow(name: string): WorkflowDefinition | undefined {
    return this.activations.workflow(name);
  }

  /** Served webhooks of a workflow, as `METHOD /hooks/path`. */
  webhooksOf(name: string): string[] {
    return this.options.webhooks.routesOf(name);
  }

  /**
   * The owner executions of a deployed workflow run for when no caller started them (webhooks,
   * schedules, events): the owner of the key that deployed it, or `defaultOwner`.
   */
  ownerOf(name: string): string {
    return this.activations.deployedBy(name) ?? this.options.defaultOwner ?? 'local';
  }

  /**
   * The principal the runs of a deployed workflow's triggers act as: its deployer as recorded
   * at deployment (roles and permissions then); for a deployment recorded without one, its
   * owner with no grants (a guarded workflow's runs are then refused).
   */
  actingPrincipal(name: string): Principal {
    const principal = this.activations.principal(name);
    if (principal) return principal;
    const owner = this.ownerOf(name);
    return keyPrincipal({ keyId: `owner:${owner}`, owner });
  }

  /**
   * Starts a deployed workflow by hand (`POST /workflows/{name}/executions`); the execution
   * belongs to the caller, who polls it. A caller that may not see the workflow (another owner's,
   * not an admin key) gets NOT_FOUND, as for an unknown name.
   */
  async runManually(
    name: string,
    inputs: Record<string, unknown>,
    caller?: Principal,
  ): Promise<PendingRecord> {
    const workflow = this.activations.workflow(name);
    const hidden = caller && !caller.admin && this.ownerOf(name) !== caller.owner;
    if (!workflow || hidden) {
      throw new NotFoundError(`no deployed workflow is named "${name}"`, { name });
    }
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

  /** Validates one definition and checks that `deployer` may (re)deploy its name; changes nothing. */
  private async validate(
    raw: unknown,
    known: readonly string[],
    deployer: Deployer | null,
    expectedName: string | undefined,
  ): Promise<{ valid: ValidDefinition; previous: DeploymentRecord | undefined }> {
    const valid = validateDefinition(raw, known);
    const name = valid.workflow.name;
    if (expectedName !== undefined && name !== expectedName) {
      throw new ValidationError(
        `the definition is named "${name}", not "${expectedName}" as in the path`,
        { field: 'name', constraint: 'matches_path' },
      );
    }
    const previous = await this.options.store.get(name);
    if (previous && deployer) this.checkOwner(previous, deployer, 'redeploy');
    return { valid, previous };
  }

  /**
   * Checks the deployer's authorization (audited), collects the warnings (refusing them when
   * `strict`) and compiles the triggers of a validated definition; changes nothing.
   * `deployedWith` are the definitions deployed together, which it may call.
   */
  private async prepare(
    { valid, previous }: { valid: ValidDefinition; previous: DeploymentRecord | undefined },
    deployedWith: readonly { valid: ValidDefinition }[],
    deployer: Deployer | null,
    source: string,
    strict: boolean,
  ): Promise<Prepared> {
    const workflow = valid.workflow;
    const library = libraryOf(
      workflow,
      (name) =>
        deployedWith.find((d) => d.valid.workflow.name === name)?.valid.workflow ??
        this.activations.workflow(name),
    );
    await authorizeDeploy({
      workflow,
      library,
      principal: this.actingAs(deployer),
      source,
      audit: this.options.audit,
    });
    const unavailable = (await this.options.unavailablePlugins?.(workflow, library)) ?? [];
    const warnings = [
      ...valid.warnings,
      ...unavailable.map(
        (plugin) =>
          `plugin "${plugin}" is neither published nor registered on this server: runs of "${workflow.name}" fail with VALIDATION until it is (publish it, or register a connector instance with the router)`,
      ),
    ];
    if (strict && warnings.length > 0) {
      throw new ValidationError(
        `not deployed (strict): "${workflow.name}" has ${warnings.length} warning${warnings.length === 1 ? '' : 's'}: ${warnings.join('; ')}`,
        { field: 'workflow', constraint: 'strict', workflow: workflow.name, warnings },
      );
    }
    return { valid, previous, activation: await this.activations.compile(workflow), warnings };
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

  /** What {@link commit} would answer, without storing or serving anything. */
  private dryRun(
    { valid, previous, activation, warnings }: Prepared,
    source: string,
    deployer: Deployer | null,
    snapshot: DeployerSnapshot | null,
  ): Deployed {
    const workflow = valid.workflow;
    const at = new Date(this.clock.now()).toISOString();
    return {
      record: {
        name: workflow.name,
        version: workflow.version,
        revision: (previous?.revision ?? 0) + 1,
        definition: valid.raw,
        plugins: pluginReferences(workflow),
        source,
        deployed_by: deployer?.owner ?? null,
        deployer: snapshot,
        deployed_at: at,
        created_at: previous?.created_at ?? at,
      },
      previousVersion: previous?.version ?? null,
      webhooks: activation.hooks.map((h) => h.key.replace(' ', ' /hooks')),
      warnings,
      dryRun: true,
    };
  }

  /** Stores a prepared definition (unless equal to the active revision) and serves it. */
  private async commit(
    { valid, previous, activation, warnings }: Prepared,
    source: string,
    deployer: Deployer | null,
    snapshot: DeployerSnapshot | null,
  ): Promise<Deployed> {
    const workflow = valid.workflow;
    const deployedBy = deployer?.owner ?? null;
    const unchanged =
      previous !== undefined &&
      previous.source === source &&
      previous.deployed_by === deployedBy &&
      isDeepStrictEqual(previous.deployer, snapshot) &&
      isDeepStrictEqual(previous.definition, valid.raw);
    const record = unchanged
      ? previous
      : await this.options.store.put({
          name: workflow.name,
          version: workflow.version,
          definition: valid.raw,
          plugins: pluginReferences(workflow),
          source,
          deployed_by: deployedBy,
          deployer: snapshot,
          deployed_at: new Date(this.clock.now()).toISOString(),
        });
    await this.activations.activate(activation, record);
    this.failed.delete(workflow.name);
    if (!unchanged) {
      this.logger.info(
        { workflow: workflow.name, revision: record.revision, source },
        'workflow deployed',
      );
    }
    return {
      record,
      previousVersion: previous?.version ?? null,
      webhooks: this.options.webhooks.routesOf(workflow.name),
      warnings,
      dryRun: false,
    };
  }

  /** FORBIDDEN unless `by` owns the deployment (or is an admin key). */
  private checkOwner(record: DeploymentRecord, by: Deployer, action: string): void {
    if (this.visibleTo(record, by)) return;
    const owner = this.recordOwner(record);
    throw new ForbiddenError(
      `the workflow "${record.name}" was deployed by ${owner}; only its owner or an admin key may ${action} it`,
      { reason: 'not_owner', name: record.name, owner },
    );
  }

  /** The owner of a stored deployment: the key's owner, or `defaultOwner` for the directory. */
  private recordOwner(record: DeploymentRecord): string {
    return record.deployed_by ?? this.options.defaultOwner ?? 'local';
  }

  private serialised<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

function isNamed(raw: unknown): raw is { name: unknown } {
  return typeof raw === 'object' && raw !== null && 'name' in raw;
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}
