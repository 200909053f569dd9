import type { FastifyInstance } from 'fastify';
import {
  deploymentKey,
  systemClock,
  type Clock,
  type DeploymentStore,
  type DetectorNames,
  type EventSource,
  type Principal,
  type SecretsProvider,
  type TriggerStore,
} from '@weft/core';
import type { WorkflowDefinition } from '@weft/engine';
import type { AuditLog } from '../audit/audit-log.js';
import { EventRouter } from '../triggers/events/event-router.js';
import { eventRoutes, type EventRoutesOptions } from '../triggers/events/events-plugin.js';
import { silentLogger, type TriggerLogger } from '../triggers/logger.js';
import { Scheduler, type PrepareStarts } from '../triggers/schedule/scheduler.js';
import type {
  Authenticate,
  OwnedStartRequest,
  PendingRecord,
  StartExecution,
  StartRequest,
} from '../triggers/start-execution.js';
import type { WebhookAuditEntry } from '../triggers/webhook/refusal.js';
import { webhookRoutes, type WebhookOutcome } from '../triggers/webhook/webhook-plugin.js';
import { WebhookTable } from '../triggers/webhook/webhook-table.js';
import type { AgentCheck } from './agent-refs.js';
import { deploymentRoutes, type ManualRunWait } from './deployment-routes.js';
import { libraryOf } from './library.js';
import { DeploymentService } from './deployment-service.js';
import { watchWorkflowDirectory, type WatchedDirectory } from './directory-watcher.js';
import { coalesced } from './coalesced.js';
import type { AgentResolver } from './plugin-refs.js';
import type { ImpactSources } from './impact/impact.js';
import { timerRepeat, type Repeat } from './reconcile.js';

/** Everything the trigger machinery needs from the composition root. */
export interface TriggersOptions {
  /**
   * Starts an execution (the server: `Runtime.startExecution`). The owner is always set: the
   * caller's for manual runs, the deployment's for webhooks, schedules and events.
   */
  start: (request: OwnedStartRequest) => Promise<PendingRecord>;
  /**
   * Prepares many starts to commit together (the server: `Runtime.prepareExecutions`); the
   * scheduler prepares the fires due at one instant ahead of it and commits them at it. Without
   * it they go through `start` one by one.
   */
  prepareStarts?: (requests: readonly OwnedStartRequest[]) => ReturnType<PrepareStarts>;
  authenticate: Authenticate;
  triggerStore: TriggerStore;
  deploymentStore: DeploymentStore;
  secrets: SecretsProvider;
  /** External event sources (NATS, Kafka, SQS, SNS) the server configured. */
  eventSources?: readonly EventSource[];
  clock?: Clock;
  logger?: TriggerLogger;
  /** What the impact check before a deploy reads (executions in progress, the registry). */
  impact?: ImpactSources;
  /** `WEFT_TRUSTED_PROXIES`, parsed into a list. */
  trustedProxies?: readonly string[];
  /** Body limit of definitions, events and webhooks without maxPayloadSize. Default 1 MiB. */
  bodyLimit?: number;
  /** The registry's latest version of a plugin (the unpublish check of bare references). */
  resolvePluginVersion?: (slug: string) => Promise<string | undefined>;
  /**
   * How often this process reconciles its deployments with the store (ms), so that deploys and
   * undeploys made on another replica take effect here. Default 1000; 0 turns it off.
   */
  reconcileIntervalMs?: number;
  /** Runs the reconciliation every interval (tests inject their own). Default: a timer. */
  repeat?: Repeat;
  audit?: (entry: WebhookAuditEntry) => void;
  /** Counts each webhook request by outcome and reason (the server's metrics). */
  onWebhook?: WebhookOutcome;
  sns?: EventRoutesOptions['sns'];
  /** Owner of workflows deployed from the workflows directory (no key). Default `local`. */
  defaultOwner?: string;
  /**
   * What the workflows directory's deployments act as now (roles and permissions the operator
   * declared, expanded); without it, a guarded workflow there is refused. Its owner should be
   * `defaultOwner`.
   */
  directoryPrincipal?: () => Principal | undefined;
  /** Records the authorization decisions of deployments (the runtime's audit log). */
  deployAudit?: AuditLog;
  /** The plugins of a workflow this server cannot run (deployment warnings). */
  unavailablePlugins?: (
    workflow: WorkflowDefinition,
    library: readonly WorkflowDefinition[],
  ) => Promise<string[]>;
  /** The guardrail detectors the runtime offers by name (checked at deploy). */
  detectors?: DetectorNames;
  /** Why this server cannot run an agent step's agent (deployment warnings). */
  checkAgent?: AgentCheck;
  /** How agent references resolve (the unpublish check of agent versions). */
  resolveAgentVersions?: AgentResolver;
  /** Waits for a manual run's end when it asks with `Prefer: wait` (the server's runtime). */
  waitFor?: ManualRunWait;
}

/** The assembled triggers: register `plugin` on the server, then `start()`. */
export interface Triggers {
  service: DeploymentService;
  scheduler: Scheduler;
  events: EventRouter;
  webhooks: WebhookTable;
  /** Registers every trigger route: /hooks/*, /events/{topic}, /sns, /workflows/{name}... */
  plugin: (app: FastifyInstance) => Promise<void>;
  /**
   * Serves stored deployments, deploys `workflowsDir` (watched), starts the scheduler and
   * reconciles with the store every `reconcileIntervalMs`.
   */
  start(workflowsDir?: string): Promise<void>;
  /** Stops watching, scheduling and listening. */
  close(): Promise<void>;
}

/** Builds the deployment service, webhook table, scheduler and event router as one unit. */
export function createTriggers(options: TriggersOptions): Triggers {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const webhooks = new WebhookTable();
  // Triggers without a caller run for the deployment's owner, acting as its deployer
  // (`service` is built below); they name their deployment by its key (`owner/name`).
  const owned = (request: StartRequest): OwnedStartRequest => {
    const key =
      request.deployment ??
      deploymentKey(request.owner ?? options.defaultOwner ?? 'local', request.workflow.name);
    const owner = request.owner ?? service.ownerOf(key);
    return {
      ...request,
      owner,
      principal: request.principal ?? service.actingPrincipal(key),
      // What it may call: deployments of its own workspace only.
      library: libraryOf(request.workflow, (name) => service.workflowOf(name, owner)),
    };
  };
  const start: StartExecution = (request) => options.start(owned(request));
  const { prepareStarts } = options;
  const scheduler = new Scheduler({
    store: options.triggerStore,
    start,
    ...(prepareStarts ? { prepareStarts: (requests) => prepareStarts(requests.map(owned)) } : {}),
    clock,
    logger,
    deployedRevisions: () => options.deploymentStore.revisions(),
  });
  const events = new EventRouter({
    start,
    sources: options.eventSources ?? [],
    logger,
  });
  const service = new DeploymentService({
    store: options.deploymentStore,
    webhooks,
    scheduler,
    events,
    secrets: options.secrets,
    start,
    clock,
    logger,
    ...(options.bodyLimit !== undefined ? { maxPayloadSize: options.bodyLimit } : {}),
    ...(options.resolvePluginVersion ? { resolvePluginVersion: options.resolvePluginVersion } : {}),
    ...(options.defaultOwner !== undefined ? { defaultOwner: options.defaultOwner } : {}),
    ...(options.directoryPrincipal ? { directoryPrincipal: options.directoryPrincipal } : {}),
    ...(options.deployAudit ? { audit: options.deployAudit } : {}),
    ...(options.unavailablePlugins ? { unavailablePlugins: options.unavailablePlugins } : {}),
    ...(options.detectors ? { detectors: options.detectors } : {}),
    ...(options.checkAgent ? { checkAgent: options.checkAgent } : {}),
    ...(options.resolveAgentVersions ? { resolveAgentVersions: options.resolveAgentVersions } : {}),
    ...(options.impact ? { impact: options.impact } : {}),
  });
  // A caller's event starts the workflows of its own owner only (an admin key: every one);
  // listeners are named by their deployment key.
  const mayStart = (deployment: string, caller: Principal) =>
    caller.admin || service.ownerOf(deployment) === caller.owner;
  let watched: WatchedDirectory | undefined;
  let pruneTimer: NodeJS.Timeout | undefined;
  let stopReconciling: (() => void) | undefined;
  return {
    service,
    scheduler,
    events,
    webhooks,
    plugin: async (app) => {
      await app.register(
        webhookRoutes({
          table: webhooks,
          start,
          store: options.triggerStore,
          refresh: coalesced(() => service.reconcile()),
          clock,
          ...(options.trustedProxies ? { trustedProxies: options.trustedProxies } : {}),
          ...(options.audit ? { audit: options.audit } : {}),
          ...(options.onWebhook ? { onOutcome: options.onWebhook } : {}),
          events: { router: events, authenticate: options.authenticate, mayStart },
        }),
      );
      await app.register(
        eventRoutes({
          router: events,
          authenticate: options.authenticate,
          mayStart,
          clock,
          logger,
          ...(options.bodyLimit !== undefined ? { bodyLimit: options.bodyLimit } : {}),
          ...(options.sns ? { sns: options.sns } : {}),
        }),
      );
      await app.register(
        deploymentRoutes({
          service,
          authenticate: options.authenticate,
          ...(options.waitFor ? { waitFor: options.waitFor } : {}),
          ...(options.bodyLimit !== undefined ? { bodyLimit: options.bodyLimit } : {}),
        }),
      );
    },
    start: async (workflowsDir) => {
      await service.restore();
      if (workflowsDir !== undefined)
        watched = await watchWorkflowDirectory(workflowsDir, service, { logger });
      scheduler.start();
      const interval = options.reconcileIntervalMs ?? 1000;
      if (interval > 0) {
        stopReconciling = (options.repeat ?? timerRepeat)(interval, async () => {
          await service
            .reconcile()
            .then(() => undefined)
            .catch((error: unknown) =>
              logger.error({ err: error }, 'deployments: reconcile failed'),
            );
        });
      }
      pruneTimer = setInterval(() => {
        const now = clock.now();
        options.triggerStore
          .prune(now, now - 86_400_000)
          .catch((error: unknown) => logger.error({ err: error }, 'triggers: prune failed'));
      }, 600_000);
      pruneTimer.unref();
    },
    close: async () => {
      watched?.close();
      stopReconciling?.();
      clearInterval(pruneTimer);
      await service.close();
    },
  };
}
