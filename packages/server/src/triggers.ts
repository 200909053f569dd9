import {
  expandPrincipal,
  localPrincipal,
  type AccessPolicy,
  type DeploymentStore,
  type EventSource,
  type ExecutionRecord,
  type Principal,
  type RegistryStore,
  type StoredExecution,
  type TriggerStore,
} from '@weft/core';
import type { FastifyInstance } from 'fastify';
import { KafkaEventSource, NatsEventSource, SqsEventSource } from '@weft/broker/events';
import type { Authenticate } from '@weft/identity';
import {
  actionTargets,
  createTriggers,
  SnsEventSource,
  toExecutionRecord,
  type ExecutionRequest,
  type OwnedStartRequest,
  type Runtime,
  type StartedExecution,
  type Triggers,
  type TriggerLogger,
} from '@weft/runtime';
import type { CompiledServerOptions } from './config.js';
import { publishedAgentVersions } from './published-agents.js';
import { agentCheckOf } from './server-agents.js';

/** What {@link buildTriggers} connects. */
export interface TriggerParts {
  app: FastifyInstance;
  runtime: Runtime;
  registry: RegistryStore;
  triggerStore: TriggerStore;
  deploymentStore: DeploymentStore;
  options: CompiledServerOptions;
  /** The server's authenticator (deployment routes and event ingestion). */
  authenticate: Authenticate;
  /** The access policy in force (expands the roles declared for the workflows directory). */
  accessPolicy: () => AccessPolicy;
  /** Reads a published agent's versions again (`PublishedAgents.refresh`). */
  refreshAgent?: (slug: string) => Promise<void>;
}

/**
 * Deployed workflows and their triggers on the server: webhooks, schedules and events start
 * executions through the runtime (owned by the deployment's owner and acting as its deployer as
 * recorded at deployment; manual runs as the caller), callers are authenticated by the server's
 * authenticator, and a webhook's `secret_name` is the environment variable of that name, then
 * `WEFT_SECRET_<NAME>`. Each triggered run's start is logged (a refused start at warn); its end
 * is logged by {@link logTriggeredEnd}.
 */
export function buildTriggers(parts: TriggerParts): Triggers {
  const { options, runtime, registry } = parts;
  const settings = options.triggers;
  const logger: TriggerLogger = parts.app.log;
  const grants = settings.workflowsGrants;
  return createTriggers({
    start: async (request) => {
      try {
        const started = await runtime.startExecution(executionRequest(request));
        logTriggeredStart(logger, request, started.execution);
        return toExecutionRecord(started.execution);
      } catch (error) {
        logRefusedStart(logger, request, error);
        throw error;
      }
    },
    prepareStarts: async (requests) => {
      const prepared = await runtime.prepareExecutions(requests.map(executionRequest));
      return {
        commit: async () => {
          const results = await prepared.commit();
          results.forEach((result, i) => {
            if (result.status === 'fulfilled')
              logTriggeredStart(logger, requests[i]!, result.value.execution);
            else logRefusedStart(logger, requests[i]!, result.reason);
          });
          return pendingRecords(results);
        },
      };
    },
    deployAudit: runtime.options.audit,
    waitFor: {
      maxSeconds: runtime.options.maxWaitSeconds,
      until: (id, owner, ms) => runtime.waitFor(id, owner, ms),
    },
    ...(runtime.options.metrics
      ? { onWebhook: runtime.options.metrics.webhookRequest.bind(runtime.options.metrics) }
      : {}),
    detectors: runtime.options.detectorNames,
    unavailablePlugins: async (workflow, library) =>
      (await runtime.options.actions.unavailable?.(actionTargets(workflow, library))) ?? [],
    // Agent steps: the runtime's own runner resolves each reference (the directory's agents and
    // the published ones) and applies the secrets policy of published agents.
    checkAgent: agentCheckOf(runtime.options.agents, parts.refreshAgent),
    resolveAgentVersions: publishedAgentVersions(registry),
    impact: {
      executions: runtime.options.store,
      registry: {
        pluginDefinition: (slug, version) => registry.getDefinition(slug, version),
        latestVersion: latestVersionOf(registry),
        agentVersions: publishedAgentVersions(registry),
      },
    },
    ...(grants
      ? {
          directoryPrincipal: () =>
            expandPrincipal(
              localPrincipal({
                subject: 'workflows-directory',
                owner: settings.workflowsOwner,
                roles: grants.roles,
                permissions: grants.permissions,
              }),
              parts.accessPolicy(),
            ),
        }
      : {}),
    authenticate: parts.authenticate,
    triggerStore: parts.triggerStore,
    deploymentStore: parts.deploymentStore,
    secrets: {
      get: (name) =>
        settings.secretsEnvironment[name] ||
        settings.secretsEnvironment[`WEFT_SECRET_${name}`] ||
        options.runtimeSecrets[name],
    },
    eventSources: eventSources(options, logger),
    trustedProxies: settings.trustedProxies,
    ...(options.bodyLimit !== undefined ? { bodyLimit: options.bodyLimit } : {}),
    logger,
    defaultOwner: settings.workflowsOwner,
    resolvePluginVersion: latestVersionOf(registry),
    reconcileIntervalMs: settings.reconcileIntervalMs,
  });
}

/**
 * The registry's latest version of a plugin: what a bare `plugin: <slug>` step runs (see
 * the dispatch's `published` transport) and so what the unpublish check counts it as using.
 */
export function latestVersionOf(
  registry: RegistryStore,
): (slug: string) => Promise<string | undefined> {
  return async (slug) =>
    (await registry.getPlugin(slug))?.plugin.listing?.latest_version ?? undefined;
}

/** SNS always (it is an HTTP endpoint); NATS, Kafka and SQS when configured. */
function eventSources(options: CompiledServerOptions, logger: TriggerLogger): EventSource[] {
  const events = options.triggers.events;
  const sources: EventSource[] = [new SnsEventSource()];
  if (events.natsUrl) {
    sources.push(new NatsEventSource({ servers: events.natsUrl, queue: 'weft-triggers', logger }));
  }
  if (events.kafkaBrokers.length > 0) {
    sources.push(new KafkaEventSource({ brokers: events.kafkaBrokers, logger }));
  }
  if (events.sqs) sources.push(new SqsEventSource({ logger }));
  return sources;
}

/**
 * The runtime's request for a trigger's start: acting as the caller (manual runs) or as the
 * deployment's deployer, and owned by the caller or the deployment's owner.
 */
function executionRequest(request: OwnedStartRequest): ExecutionRequest {
  const principal: Principal =
    request.principal.owner === request.owner
      ? request.principal
      : { ...request.principal, owner: request.owner };
  return {
    workflow: request.workflow,
    library: request.library,
    inputs: request.inputs,
    trigger: request.trigger,
    principal,
    ...(request.trace ? { trace: request.trace } : {}),
    ...(request.executionId !== undefined ? { executionId: request.executionId } : {}),
  };
}

/** Trigger types whose runs the server logs (they have no caller to tell). */
const TRIGGERED: ReadonlySet<string> = new Set(['schedule', 'webhook', 'event']);

function logTriggeredStart(
  logger: TriggerLogger,
  request: OwnedStartRequest,
  execution: StoredExecution,
): void {
  if (!TRIGGERED.has(request.trigger.type)) return;
  logger.info(
    {
      workflow: request.workflow.name,
      execution_id: execution.id,
      trigger: request.trigger.type,
      owner: execution.owner,
      status: execution.status,
    },
    `${request.trigger.type} run of ${request.workflow.name} started: ${execution.id}${execution.status === 'waiting' ? ' (waiting for approval)' : ''}`,
  );
}

function logRefusedStart(logger: TriggerLogger, request: OwnedStartRequest, error: unknown): void {
  if (!TRIGGERED.has(request.trigger.type)) return;
  logger.warn(
    { workflow: request.workflow.name, trigger: request.trigger.type, err: error },
    `${request.trigger.type} run of ${request.workflow.name} not started: ${(error as Error).message}`,
  );
}

/**
 * Logs the end of a run a trigger started (the runtime's `onEnded`), per workflow: `completed`
 * at info, anything else (failed, canceled, timed out) at warn.
 */
export function logTriggeredEnd(logger: TriggerLogger, execution: StoredExecution): void {
  if (!TRIGGERED.has(execution.trigger.type)) return;
  const fields = {
    workflow: execution.workflow,
    execution_id: execution.id,
    trigger: execution.trigger.type,
    owner: execution.owner,
    status: execution.status,
    ...(execution.error ? { error_code: execution.error.code } : {}),
  };
  const message = `${execution.trigger.type} run of ${execution.workflow} ${execution.status}: ${execution.id}${execution.error ? ` (${execution.error.code}: ${execution.error.message})` : ''}`;
  if (execution.status === 'completed') logger.info(fields, message);
  else logger.warn(fields, message);
}

/** The pending records of started executions; failures as they are. */
function pendingRecords(
  results: readonly PromiseSettledResult<StartedExecution>[],
): PromiseSettledResult<ExecutionRecord>[] {
  return results.map((result) =>
    result.status === 'fulfilled'
      ? { status: 'fulfilled', value: toExecutionRecord(result.value.execution) }
      : result,
  );
}
