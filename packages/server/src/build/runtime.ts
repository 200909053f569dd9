import type { FastifyInstance } from 'fastify';
import { configuredDetectorsOf } from '@weft/agents';
import type { AuditStore } from '@weft/core';
import type { Router } from '@weft/router';
import {
  MemoryAuditStore,
  Runtime,
  runtimeRoutes,
  type RetentionOverride,
  type RuntimeOptions,
} from '@weft/runtime';
import type { Telemetry } from '@weft/telemetry/setup';
import { createDispatch } from '../dispatch/index.js';
import { trackInFlight, type InFlightTracking } from '../in-flight.js';
import { executionLog } from '../run-log.js';
import { registerBudgetRoutes } from '../budgets-routes.js';
import type { ServerBroker } from '../server-broker.js';
import { logTriggeredEnd } from '../triggers.js';
import { serveAgents, type ServedAgents } from './agents.js';
import type { BuildContext } from './context.js';
import type { MountedRegistry } from './registry.js';
import type { ServerStores } from './stores.js';

/** What the runtime phase needs from the phases before it. */
export interface RuntimeParts {
  app: FastifyInstance;
  stores: ServerStores;
  registry: MountedRegistry;
  router: Router;
  broker: ServerBroker | undefined;
  telemetry: Telemetry;
}

/** What the runtime phase gives the later ones. */
export interface MountedRuntime {
  runtime: Runtime;
  /** The executions store as the runtime sees it, counting this replica's executions. */
  tracked: InFlightTracking;
  agents: ServedAgents;
  /** Deployed workflows' own retention: set by the triggers phase. */
  retentionOverrides: { current?: () => Promise<RetentionOverride[]> };
}

/**
 * The runtime phase: the dispatch of actions, the agent runner, the content detectors and the
 * runtime (executions API, durable runs, callbacks) with its routes on `app`; pushes the
 * runtime's close (it detaches running executions). Without an executions store, no runtime.
 */
export async function mountRuntime(
  context: BuildContext,
  parts: RuntimeParts,
): Promise<MountedRuntime | undefined> {
  const { options, dependencies, stack } = context;
  const { app, stores, router, telemetry } = parts;
  if (!stores.executions) return undefined;
  const tracked = trackInFlight(stores.executions);
  const secrets = { get: async (name: string) => options.runtimeSecrets[name] };
  const dispatch = createDispatch({
    router,
    registry: stores.registry,
    tasks: parts.broker?.tasks,
    taskTimeoutMs: options.routerTimeoutMs,
    egressAllowlist: options.egressAllowlist,
  });
  const agents = await serveAgents(context, {
    ...parts,
    dispatch,
    secrets,
    executions: tracked.store,
  });
  const detectors = configuredDetectorsOf(
    options.moderation,
    (name) => options.runtimeSecrets[name],
    options.judge,
  );
  const retentionOverrides: MountedRuntime['retentionOverrides'] = {};
  const runtime = new Runtime({
    agents: agents.runner,
    guardrails: { ...agents.runner.guardrailsOptions(), detectors },
    store: tracked.store,
    authenticate: parts.registry.identity.authenticator.authenticate,
    actions: dispatch.actions,
    egressAllowlist: options.egressAllowlist,
    secrets,
    // One server owns an embedded SQLite file: it takes over every unfinished execution.
    takeOverOnStart: !options.databaseUrl && !dependencies.executionsStore,
    replica: options.replicaId,
    retention: {
      ...(options.retentionDays > 0 ? { executionDays: options.retentionDays } : {}),
      ...(options.auditRetentionDays > 0 ? { auditDays: options.auditRetentionDays } : {}),
      // Deployed workflows' own retention (the triggers are built after the runtime).
      overrides: async () => (await retentionOverrides.current?.()) ?? [],
    },
    allowSelfApproval: options.allowSelfApproval,
    ...(options.maxForEachItems !== undefined ? { maxForEachItems: options.maxForEachItems } : {}),
    onError: (error, context) => app.log.error({ err: error }, context),
    onEnded: (execution) => logTriggeredEnd(app.log, execution),
    runLog: executionLog(app.log),
    ...(telemetry.tracing ? { tracing: telemetry.tracing } : {}),
    metrics: telemetry.metrics,
    ...auditOptions(stores.audit, app, options.identity.auditorRoles),
    ...dependencies.runtime,
  });
  stack.push(() => runtime.close());
  await app.register(runtimeRoutes(runtime));
  if (stores.budgets) {
    const ledger = stores.budgets;
    await app.register(async (scoped) =>
      registerBudgetRoutes(scoped, runtime, {
        ledger,
        deployments: stores.deployments,
        now: dependencies.budgetClock ?? Date.now,
      }),
    );
  }
  return { runtime, tracked, agents, retentionOverrides };
}

/**
 * The runtime's audit log on `store` (the same database as executions; in memory without one),
 * logged on `app.log`, readable per workspace by holders of `auditorRoles`.
 */
function auditOptions(
  store: AuditStore | undefined,
  app: FastifyInstance,
  auditorRoles: readonly string[],
): Partial<RuntimeOptions> {
  return { audit: { store: store ?? new MemoryAuditStore(), logger: app.log, auditorRoles } };
}
