import { keyPrincipal } from '@weft/core';
import type { FastifyInstance } from 'fastify';
import type { DeploymentStore, ExecutionRecord, RegistryStore, TriggerStore } from '@weft/core';
import type { Authenticate } from '@weft/identity';
import {
  createTriggers,
  KafkaEventSource,
  NatsEventSource,
  SnsEventSource,
  SqsEventSource,
  toExecutionRecord,
  type EventSource,
  type ExecutionRequest,
  type OwnedStartRequest,
  type Runtime,
  type StartedExecution,
  type Triggers,
  type TriggerLogger,
} from '@weft/runtime';
import type { CompiledServerOptions } from './config.js';

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
}

/**
 * Deployed workflows and their triggers on the server: webhooks, schedules and events start
 * executions through the runtime (as the deployment's owner; manual runs as the caller), callers
 * are authenticated by the server's authenticator, and a webhook's `secret_name` is the environment variable of that name,
 * then `WEFT_SECRET_<NAME>`.
 */
export function buildTriggers(parts: TriggerParts): Triggers {
  const { options, runtime, registry } = parts;
  const settings = options.triggers;
  const logger: TriggerLogger = parts.app.log;
  return createTriggers({
    start: async (request) =>
      toExecutionRecord((await runtime.startExecution(executionRequest(request))).execution),
    prepareStarts: async (requests) => {
      const prepared = await runtime.prepareExecutions(requests.map(executionRequest));
      return { commit: async () => pendingRecords(await prepared.commit()) };
    },
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
 * `RouterAndRegistryActions`) and so what the unpublish check counts it as using.
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

/** The runtime's request for a trigger's start (the owner is the caller's or the deployment's). */
function executionRequest(request: OwnedStartRequest): ExecutionRequest {
  return {
    workflow: request.workflow,
    library: request.library,
    inputs: request.inputs,
    trigger: request.trigger,
    // Until deployments record their deployer's principal: the deployment's owner, no grants.
    principal: keyPrincipal({
      keyId: request.keyId ?? `owner:${request.owner}`,
      owner: request.owner,
    }),
  };
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
