import {
  assertNever,
  ConflictError,
  deployerPrincipal,
  deploymentKey,
  parseDeploymentKey,
  type DeployerSnapshot,
  type DeploymentRecord,
  type EventTrigger,
  type Principal,
  type SecretsProvider,
} from '@weft/core';
import type { WorkflowDefinition } from '@weft/engine';
import type { EventRouter } from '../triggers/events/event-router.js';
import { compileSchedule, type CompiledSchedule } from '../triggers/schedule/schedule.js';
import type { Scheduler } from '../triggers/schedule/scheduler.js';
import { compileWebhook, type CompiledWebhook } from '../triggers/webhook/compile-webhook.js';
import type { WebhookTable } from '../triggers/webhook/webhook-table.js';

/** What {@link Activations} serves triggers with. */
export interface ActivationsOptions {
  webhooks: WebhookTable;
  scheduler: Scheduler;
  events: EventRouter;
  secrets: SecretsProvider;
  /** Largest webhook body of webhooks that set no maxPayloadSize. */
  maxPayloadSize?: number;
}

/** Triggers of one workflow, compiled and checked, not yet serving. */
export interface Activation {
  workflow: WorkflowDefinition;
  hooks: CompiledWebhook[];
  schedules: CompiledSchedule[];
  events: EventTrigger[];
}

/** One workflow whose triggers this process serves. */
interface Active {
  workflow: WorkflowDefinition;
  /** The workspace the deployment belongs to. */
  owner: string;
  /** Who deployed it, as recorded: what the runs of its triggers act as. */
  deployer: DeployerSnapshot | null;
  /** The principal of `deployer`, built once (every webhook request asks for it). */
  principal: Principal | undefined;
  /** The stored revision served. */
  revision: number;
}

/**
 * The deployments this process serves: compiles a workflow's triggers (secrets, routes,
 * schedules, event sources, refusing a webhook route another workflow serves), then serves them
 * on the webhook table, the scheduler and the event router, remembering which revision it serves.
 * Every deployment is known by its key, `owner/name` ({@link deploymentKey}): two owners'
 * workflows of one name are two deployments, with their own schedules and subscriptions.
 */
export class Activations {
  private readonly active = new Map<string, Active>();

  constructor(private readonly options: ActivationsOptions) {}

  /** Keys of the deployments served. */
  keys(): string[] {
    return [...this.active.keys()];
  }

  /** The served definition of a deployment. */
  workflow(key: string): WorkflowDefinition | undefined {
    return this.active.get(key)?.workflow;
  }

  /** The served revision of a deployment. */
  revision(key: string): number | undefined {
    return this.active.get(key)?.revision;
  }

  /** The owner of a served deployment (undefined: not served). */
  owner(key: string): string | undefined {
    return this.active.get(key)?.owner;
  }

  /** What the runs of a served deployment's triggers act as (undefined: no deployer recorded). */
  principal(key: string): Principal | undefined {
    return this.active.get(key)?.principal;
  }

  /**
   * Compiles the triggers of a workflow to be deployed for `owner`; throws what a deployment
   * would be refused with. Webhook paths are one namespace across owners (they are URLs): a path
   * another deployment serves is refused, naming that workflow only when `reveal` says the
   * deployer may see it (given the deployment's key; another owner's stays unnamed).
   */
  async compile(
    workflow: WorkflowDefinition,
    owner: string,
    reveal: (key: string) => boolean = () => true,
  ): Promise<Activation> {
    const activation: Activation = { workflow, hooks: [], schedules: [], events: [] };
    for (const [index, trigger] of (workflow.triggers ?? []).entries()) {
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
      deploymentKey(owner, workflow.name),
      activation.hooks.map((h) => h.key),
    );
    if (collisions.length > 0) {
      const first = collisions[0]!;
      const route = first.route.replace(' ', ' /hooks');
      if (!reveal(first.workflow)) {
        throw new ConflictError(
          `the webhook ${route} is already served by another workflow; choose another path`,
          { reason: 'route_taken', route: first.route },
        );
      }
      const { name } = parseDeploymentKey(first.workflow);
      throw new ConflictError(
        `the webhook ${route} is already served by the workflow "${name}"; choose another path`,
        { reason: 'route_taken', route: first.route, workflow: name },
      );
    }
    return activation;
  }

  /**
   * Notes a stored revision of `workflow` this process cannot serve (a webhook secret missing
   * here): unless an earlier revision is served, its webhook routes answer 503, not 404.
   * `null` forgets what was noted (the workflow was undeployed).
   */
  unservable(key: string, workflow: WorkflowDefinition | null): void {
    if (workflow === null || this.active.has(key)) {
      this.options.webhooks.forgetUnservable(key);
      return;
    }
    const keys = (workflow.triggers ?? []).flatMap((t) =>
      t.type === 'webhook' ? [`${t.method ?? 'POST'} ${t.path}`] : [],
    );
    this.options.webhooks.markUnservable(key, keys);
  }

  /** Serves the compiled triggers of the stored deployment `record`, replacing earlier ones. */
  async activate(activation: Activation, record: DeploymentRecord): Promise<void> {
    const key = deploymentKey(record.owner, record.name);
    // First: a webhook served below already starts executions for the deployment's owner.
    this.active.set(key, {
      workflow: activation.workflow,
      owner: record.owner,
      deployer: record.deployer ?? null,
      principal: record.deployer ? deployerPrincipal(record.deployer) : undefined,
      revision: record.revision,
    });
    this.options.webhooks.replace(key, activation.hooks);
    await this.options.scheduler.register(key, activation.schedules, record.revision);
    await this.options.events.register(activation.workflow, activation.events, key);
  }

  /** Stops serving a deployment; `forgetSchedules` also drops its stored next fires. */
  async deactivate(key: string, forgetSchedules: boolean): Promise<void> {
    this.options.webhooks.remove(key);
    await this.options.scheduler.unregister(key, forgetSchedules);
    await this.options.events.unregister(key);
    this.active.delete(key);
  }
}
