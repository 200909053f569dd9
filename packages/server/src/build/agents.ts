import type { FastifyInstance } from 'fastify';
import { BudgetsAcrossRuns, routeAiSdkWarnings, type AgentRunner } from '@weft/agents';
import type { ExecutionsStore, SecretsProvider } from '@weft/core';
import type { Router } from '@weft/router';
import type { Telemetry } from '@weft/telemetry/setup';
import type { ServerDispatch } from '../dispatch/index.js';
import type { PublishedAgents } from '../published-agents.js';
import { servedVersionOf, serverAgents } from '../server-agents.js';
import type { BuildContext } from './context.js';
import type { MountedRegistry } from './registry.js';
import type { ServerStores } from './stores.js';

/** What {@link serveAgents} needs from the phases before it. */
export interface AgentParts {
  app: FastifyInstance;
  stores: ServerStores;
  registry: MountedRegistry;
  router: Router;
  telemetry: Telemetry;
  dispatch: ServerDispatch;
  secrets: SecretsProvider;
  /** The runtime's executions store (the cost of a taken-over run's journaled steps). */
  executions: ExecutionsStore;
}

/** The agent runner of server-side agent steps, and the published agents it resolves. */
export interface ServedAgents {
  runner: AgentRunner;
  published: PublishedAgents;
}

/**
 * Agent serving, part of the runtime phase: the runner over the `--agents` directory and the
 * agents published to the registry (a directory that does not load throws here), kept current
 * by the store's announcements of other replicas' publications, whose watch it pushes.
 */
export async function serveAgents(
  { options, stack, dependencies }: BuildContext,
  parts: AgentParts,
): Promise<ServedAgents> {
  const { app, stores, telemetry } = parts;
  const store = stores.registry;
  const budgets = new BudgetsAcrossRuns({
    ledger: stores.budgets,
    where: "the server's database",
    ...(dependencies.budgetClock ? { now: dependencies.budgetClock } : {}),
    onSpend: (spend) => telemetry.metrics.agentSpend(spend),
    onError: (error) =>
      app.log.error({ err: error }, 'a model call could not be settled in the budget ledger'),
  });
  const served = await serverAgents(options.agentsDir, store, parts.secrets, {
    publishedModelFetch: parts.dispatch.publishedModelFetch,
    publishedAgentSecrets: options.publishedAgentSecrets,
    turns: telemetry.tracing?.modelTurns,
    executions: parts.executions,
    served: servedVersionOf(parts.router),
    budgets,
    onError: (error, slug) =>
      app.log.error({ err: error, slug }, 'a published agent could not be read'),
  });
  // The AI SDK's warnings (an unsupported setting of a model) are log lines of the server.
  routeAiSdkWarnings(app.log);
  parts.registry.publishedAgents.current = served.published;
  // Another replica's publications (PostgreSQL): read again when announced, all when missed.
  const unwatch = await store.watchPluginChanges((slug) => {
    void (slug === null ? served.published.load() : served.published.refresh(slug));
  });
  stack.push(() => unwatch());
  return served;
}
