import {
  assertNever,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  systemClock,
  ValidationError,
  type Clock,
  type DeploymentRecord,
  type DeploymentStore,
  type EventTrigger,
  type PluginUsage,
  type SecretsProvider,
} from '@weft/core';
import type { WorkflowDefinition } from '@weft/engine';
import type { EventRouter } from '../triggers/events/event-router.js';
import { silentLogger, type TriggerLogger } from '../triggers/logger.js';
import { compileSchedule, type CompiledSchedule } from '../triggers/schedule/schedule.js';
import type { Scheduler } from '../triggers/schedule/scheduler.js';
import type { PendingRecord, StartExecution } from '../triggers/start-execution.js';
import { compileWebhook, type CompiledWebhook } from '../triggers/webhook/compile-webhook.js';
import type { WebhookTable } from '../triggers/webhook/webhook-table.js';
import { validateDefinition } from './parse-definition.js';
import { pluginReferences } from './plugin-refs.js';

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
  /** Version a bare `plugin: <slug>` resolves to at deployment (e.g. the registry's latest). */
  resolvePluginVersion?: (slug: string) => Promise<string | undefined>;
  /**
   * Owner of the executions of workflows deployed without a key (`weft server --workflows DIR`).
   * Default `local`.
   */
  defaultOwner?: string;
}

/** Who may change a deployment: the owner of a key, and whether it is an admin key. */
export interface Deployer {
  owner: string;
  admin?: boolean;
}

/** Triggers of one workflow, compiled and checked, not yet serving. */
interface Activation {
  workflow: WorkflowDefinition;
  hooks: CompiledWebhook[];
  schedules: CompiledSchedule[];
  events: EventTrigger[];
}

/** Answer of a deployment. */
export interface Deployed {
  record: DeploymentRecord;
  previousVersion: string | null;
  webhooks: string[];
  warnings: string[];
}

/**
 * Deploys workflows: validates a definition with the engine, compiles its triggers (secrets,
 * routes, schedules, event sources) and refuses it before anything changes when one fails or a
 * webhook route belongs to another workflow; then stores the revision and serves its triggers.
 */
export class DeploymentService {
  private readonly clock: Clock;
  private readonly logger: TriggerLogger;
  private readonly active = new Map<string, WorkflowDefinition>();
  /** `deployed_by` of each active deployment (null: the workflows directory). */
  private readonly owners = new Map<string, string | null>();
  /** Serialises deployments so route collision checks and activation never interleave. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: DeploymentServiceOptions) {
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger;
  }

  /** The registry's "in use" check for unpublish. */
  readonly usage: PluginUsage = {
    activeWorkflows: (slug, version) => this.options.store.usersOf(slug, version),
  };

  /** Deploys one definition (the object inside `workflows`). */
  deploy(
    raw: unknown,
    source: string,
    deployedBy: string | null | Deployer,
    expectedName?: string,
  ): Promise<Deployed> {
    const deployer = typeof deployedBy === 'string' ? { owner: deployedBy } : deployedBy;
    return this.serialised(async () => {
      const known = [...this.active.keys()];
      const valid = validateDefinition(raw, known);
      const workflow = valid.workflow;
      if (expectedName !== undefined && workflow.name !== expectedName) {
        throw new ValidationError(
          `the definition is named "${workflow.name}", not "${expectedName}" as in the path`,
          {
            field: 'name',
            constraint: 'matches_path',
          },
        );
      }
      const previous = await this.options.store.get(workflow.name);
      if (previous && deployer) this.checkOwner(previous, deployer, 'redeploy');
      const activation = await this.compile(workflow);
      const record = await this.options.store.put({
        name: workflow.name,
        version: workflow.version,
        definition: valid.raw,
        plugins: await pluginReferences(workflow, this.options.resolvePluginVersion),
        source,
        deployed_by: deployer?.owner ?? null,
        deployed_at: new Date(this.clock.now()).toISOString(),
      });
      await this.activate(activation, record.deployed_by);
      this.logger.info(
        { workflow: workflow.name, revision: record.revision, source },
        'workflow deployed',
      );
      return {
        record,
        previousVersion: previous?.version ?? null,
        webhooks: this.options.webhooks.routesOf(workflow.name),
        warnings: valid.warnings,
      };
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
      await this.deactivate(name, true);
      this.logger.info({ workflow: name }, 'workflow undeployed');
    });
  }

  /** Serves the triggers of every stored deployment (server start); failures are logged. */
  async restore(): Promise<void> {
    for (const record of await this.options.store.list()) {
      try {
        const { workflow } = validateDefinition(record.definition, [
          ...this.active.keys(),
          record.name,
        ]);
        await this.serialised(async () =>
          this.activate(await this.compile(workflow), record.deployed_by),
        );
      } catch (error) {
        this.logger.error(
          { workflow: record.name, err: error },
          'could not serve the triggers of a deployed workflow',
        );
      }
    }
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
    return this.active.get(name);
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
    return this.owners.get(name) ?? this.options.defaultOwner ?? 'local';
  }

  /**
   * Starts a deployed workflow by hand (`POST /workflows/{name}/executions`); the execution
   * belongs to the caller, who polls it. A caller that may not see the workflow (another owner's,
   * not an admin key) gets NOT_FOUND, as for an unknown name.
   */
  async runManually(
    name: string,
    inputs: Record<string, unknown>,
    caller?: { owner: string; keyId: string; admin?: boolean },
  ): Promise<PendingRecord> {
    const workflow = this.active.get(name);
    const hidden = caller && !caller.admin && this.ownerOf(name) !== caller.owner;
    if (!workflow || hidden) {
      throw new NotFoundError(`no deployed workflow is named "${name}"`, { name });
    }
    return this.options.start({
      workflow,
      inputs,
      trigger: { type: 'manual' },
      ...(caller ? { owner: caller.owner, keyId: caller.keyId } : {}),
    });
  }

  /** Stops every trigger (server shutdown). */
  async close(): Promise<void> {
    await this.options.scheduler.stop();
    await this.options.events.close();
  }

  private async compile(workflow: WorkflowDefinition): Promise<Activation> {
    const activation: Activation = { workflow, hooks: [], schedules: [], events: [] };
    const triggers = workflow.triggers ?? [];
    for (const [index, trigger] of triggers.entries()) {
      switch (trigger.type) {
        case 'manual':
          break;
        case 'webhook':
          activation.hooks.push(
            await compileWebhook(workflow, trigger, index, {
              secrets: this.options.secrets,
              ...(this.options.maxPayloadSize !== undefined
                ? { maxPayloadSize: this.options.maxPayloadSize }
                : {}),
            }),
          );
          break;
        case 'schedule':
          activation.schedules.push(compileSchedule(workflow, trigger, index));
          break;
        case 'event':
          activation.events.push(trigger);
          this.options.events.check([{ trigger, index }]);
          break;
        default:
          assertNever(trigger, 'trigger');
      }
    }
    const collisions = this.options.webhooks.collisions(
      workflow.name,
      activation.hooks.map((h) => h.key),
    );
    if (collisions.length > 0) {
      const first = collisions[0]!;
      throw new ConflictError(
        `the webhook ${first.route.replace(' ', ' /hooks')} is already served by the workflow "${first.workflow}"; choose another path`,
        { reason: 'route_taken', route: first.route, workflow: first.workflow },
      );
    }
    return activation;
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

  private async activate(activation: Activation, deployedBy: string | null): Promise<void> {
    const name = activation.workflow.name;
    this.owners.set(name, deployedBy);
    this.options.webhooks.replace(name, activation.hooks);
    await this.options.scheduler.register(name, activation.schedules);
    await this.options.events.register(activation.workflow, activation.events);
    this.active.set(name, activation.workflow);
  }

  private async deactivate(name: string, forgetSchedules: boolean): Promise<void> {
    this.options.webhooks.remove(name);
    await this.options.scheduler.unregister(name, forgetSchedules);
    await this.options.events.unregister(name);
    this.active.delete(name);
    this.owners.delete(name);
  }

  private serialised<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
