import {
  publishedAgentVersions,
  registryAgentCheck,
  type PublishedAgents,
} from './published-agents.js';
import { configuredDetectorsOf } from '@weft/agents';
import { servedVersionOf, serverAgents } from './server-agents.js';
import { routeAiSdkWarnings } from '@weft/agents';
import { readFileSync } from 'node:fs';
import { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import {
  MemoryAuditStore,
  MemoryRoutesStore,
  type AuditStore,
  type ExecutionsStore,
  type PluginUsage,
  type RegistryStore,
  type RoutesStore,
  type Broker,
  type DeploymentStore,
  type TriggerStore,
} from '@weft/core';
import { createHttpApp } from '@weft/http';
import { registryPlugin, type RegistryClock } from '@weft/registry';
import { Router } from '@weft/router';
import {
  pluginUsage,
  Runtime,
  runtimeRoutes,
  type RetentionOverride,
  type RuntimeOptions,
  type Triggers,
} from '@weft/runtime';
import { openStore, type StoreOptions } from '@weft/store';
import { traceFields } from '@weft/telemetry';
import { startTelemetry, type Telemetry } from '@weft/telemetry/setup';
import { compileServerOptions, type CompiledServerOptions, type ServerOptions } from './config.js';
import { registerAuthConfig, SignInProvider } from './auth-config.js';
import { consoleDistDir, loadConsoleFiles, registerConsole } from './console.js';
import { registerHealth } from './health.js';
import { openIdentity, type ServerIdentity } from './identity.js';
import { RouterAndRegistryActions } from './runtime-actions.js';
import { buildTriggers, latestVersionOf, logTriggeredEnd } from './triggers.js';
import { trackInFlight } from './in-flight.js';
import { executionLog } from './run-log.js';
import { countRegistryRequests, observedSources, registerMetrics } from './metrics.js';
import { openServerBroker, type ServerBroker } from './server-broker.js';

/** Parts a test or another composition may supply instead of the defaults. */
export interface ServerDependencies {
  /** Use this store instead of opening one from the options (it is not closed by the server). */
  store?: RegistryStore;
  /** The routing table to use (default: the store's; in memory when `store` is given alone). */
  routesStore?: RoutesStore;
  clock?: RegistryClock;
  usage?: PluginUsage;
  /** `false`: no logging (default: pino at the configured level). */
  logger?: boolean;
  /** Where the log lines go as JSON instead of stdout (tests read them). */
  logStream?: { write(line: string): void };
  /** Executions store (default: the opened store's; no runtime when `store` is given alone). */
  executionsStore?: ExecutionsStore;
  /** Deployed workflows and trigger state (default: the opened store's; none with `store` alone). */
  deploymentStore?: DeploymentStore;
  triggerStore?: TriggerStore;
  /** The audit log (default: the opened store's; in memory when `store` is given alone). */
  auditStore?: AuditStore;
  /** Options of the runtime beyond what the server options give (tests: short leases). */
  runtime?: Partial<RuntimeOptions>;
  /** Adds routes of the caller before the server is sealed (benchmarks add a bare route). */
  routes?: (app: FastifyInstance) => void;
  /** Use this broker instead of connecting to `options.broker` (it is not closed by the server). */
  broker?: Broker;
  /** Telemetry to use instead of starting it from `options.telemetry` (it is not shut down). */
  telemetry?: Telemetry;
}

/** A built, not yet listening server. */
export interface BuiltServer {
  app: FastifyInstance;
  store: RegistryStore;
  /** The router (routing table, health checker, dispatch). */
  router: Router;
  /** The runtime (executions API, durable runs, callbacks); absent without an executions store. */
  runtime: Runtime | undefined;
  /** Deployed workflows and their triggers; absent without a runtime. */
  triggers: Triggers | undefined;
  /** The one authenticator of every route (API keys, identity-provider tokens, access file). */
  identity: ServerIdentity;
  /** The broker and task dispatch, when a broker is configured. */
  broker: ServerBroker | undefined;
  /** `sqlite:/path/weft.db` or the database URL without password. */
  storage: string;
  /** Traces (when configured) and the metric instruments. */
  telemetry: Telemetry;
  options: CompiledServerOptions;
  /** Closes the HTTP server, then the store (when the server opened it). */
  close(): Promise<void>;
}

/** Where the options say to store. */
export function storeOptionsOf(options: CompiledServerOptions): StoreOptions {
  return options.databaseUrl
    ? {
        kind: 'postgres',
        url: options.databaseUrl,
        ...(options.databaseSchema ? { schema: options.databaseSchema } : {}),
      }
    : { kind: 'sqlite', dataDir: options.dataDir };
}

/** The store of a server: on SQLite, WAL checkpoints run in a background thread from the start. */
export function serverStoreOptions(options: CompiledServerOptions): StoreOptions {
  const store = storeOptionsOf(options);
  return store.kind === 'sqlite' ? { ...store, checkpoints: 'background' } : store;
}

/** Builds the platform server: store, registry, health and OpenAPI, on one Fastify instance. */
export async function buildServer(
  options: ServerOptions = {},
  dependencies: ServerDependencies = {},
): Promise<BuiltServer> {
  const compiled = compileServerOptions(options);
  const opened = dependencies.store
    ? {
        registry: dependencies.store,
        routes: dependencies.routesStore ?? new MemoryRoutesStore(),
        description: dependencies.store.kind,
      }
    : await openStore(serverStoreOptions(compiled));
  const store = opened.registry;
  const deployments =
    dependencies.deploymentStore ?? ('deployments' in opened ? opened.deployments : undefined);
  /** Closes the stores the server opened (not those it was given). */
  const closeStores = async () => {
    if (!dependencies.executionsStore && 'executions' in opened) await opened.executions.close();
    if (!dependencies.store) await store.close();
  };
  const telemetry = dependencies.telemetry ?? startTelemetry(compiled.telemetry);
  const app = await createHttpApp({
    ...httpsOptions(compiled),
    logger:
      dependencies.logger === false
        ? false
        : {
            level: compiled.logLevel,
            // Log lines written inside a traced run carry its trace_id and span_id.
            ...(telemetry.tracing ? { mixin: traceFields } : {}),
            ...(dependencies.logStream ? { stream: dependencies.logStream } : {}),
            ...(compiled.logFormat === 'text' && !dependencies.logStream
              ? {
                  transport: {
                    target: 'pino-pretty',
                    options: { colorize: false, ignore: 'pid,hostname' },
                  },
                }
              : {}),
          },
    // Per-request lines only at debug level: the default info level logs startup and errors.
    logController: new LogController({
      disableRequestLogging: compiled.logLevel !== 'debug' && compiled.logLevel !== 'trace',
    }),
    ...(compiled.bodyLimit !== undefined ? { bodyLimit: compiled.bodyLimit } : {}),
  });
  countRegistryRequests(app, telemetry.metrics);
  telemetry.metrics.observeProcess();
  registerHealth(app, store);
  const signIn =
    compiled.identity.oidc && compiled.identity.signIn
      ? new SignInProvider(compiled.identity.oidc, compiled.identity.signIn)
      : undefined;
  registerAuthConfig(app, signIn);
  const consoleDir = consoleDistDir();
  registerConsole(
    app,
    consoleDir ? loadConsoleFiles(consoleDir) : undefined,
    signIn ? () => signIn.connectSources() : undefined,
  );
  if (!consoleDir)
    app.log.warn('the web console is not built: /console answers 404 (npm run build)');
  let identity: ServerIdentity;
  try {
    identity = openIdentity(compiled.identity, store, app.log);
  } catch (error) {
    await app.close();
    await closeStores();
    throw error;
  }
  const authenticate = identity.authenticator.authenticate;
  // Agents published to the registry, resolved by agent steps (set once the runtime is built).
  const publishedAgents: { current?: PublishedAgents | undefined } = {};
  await app.register(
    registryPlugin({
      store,
      authenticate,
      agents: registryAgentCheck,
      onChange: (slug) => publishedAgents.current?.refresh(slug),
      private: compiled.private,
      ...(compiled.publicUrl ? { publicUrl: compiled.publicUrl } : {}),
      ...(compiled.bodyLimit !== undefined ? { bodyLimit: compiled.bodyLimit } : {}),
      ...(compiled.cacheTtlMs !== undefined ? { cacheTtlMs: compiled.cacheTtlMs } : {}),
      ...(compiled.downloadFlushMs !== undefined
        ? { downloadFlushMs: compiled.downloadFlushMs }
        : {}),
      ...(dependencies.clock ? { clock: dependencies.clock } : {}),
      ...(dependencies.usage ? { usage: dependencies.usage } : {}),
      // A version a deployed workflow pins, or the latest one when it references the plugin
      // bare, or an agent version an agent step's range resolves to, is "in use" (unpublish is
      // refused).
      ...(!dependencies.usage && deployments
        ? {
            usage: pluginUsage(deployments, latestVersionOf(store), publishedAgentVersions(store)),
          }
        : {}),
    }),
  );
  const router = new Router(
    {
      store: dependencies.routesStore ?? opened.routes,
      ...(compiled.routerToken ? { token: compiled.routerToken } : {}),
      requireClientCert: compiled.tls?.clientCa !== undefined,
      // POST /execute takes the API keys (and identity-provider tokens) of the public API.
      authenticate,
      openExecute: compiled.routerOpenExecute,
      ...(compiled.healthIntervalMs ? { healthIntervalMs: compiled.healthIntervalMs } : {}),
      ...(compiled.healthTimeoutMs ? { healthTimeoutMs: compiled.healthTimeoutMs } : {}),
      ...(compiled.healthFailures ? { healthFailures: compiled.healthFailures } : {}),
      ...(compiled.routerTimeoutMs ? { executeTimeoutMs: compiled.routerTimeoutMs } : {}),
      ...(compiled.bodyLimit !== undefined ? { bodyLimit: compiled.bodyLimit } : {}),
      egressAllowlist: compiled.egressAllowlist,
    },
    (error) => app.log.error({ err: error }, 'router health check failed'),
  );
  await app.register(router.plugin());
  // Plain POST /execute and /{plugin_slug}/execute calls skip Fastify (issue 20); not when every
  // request is logged, so that debug logs keep their per-request lines.
  if (compiled.logLevel !== 'debug' && compiled.logLevel !== 'trace') {
    const fast = router.fastPath(app);
    app.addHook('preClose', (done) => {
      fast.disable();
      done();
    });
  }
  if (!compiled.routerToken && compiled.tls?.clientCa === undefined) {
    app.log.warn(
      'router registration is open to anyone who can reach this server: set WEFT_ROUTER_TOKEN or --tls-client-ca (development only)',
    );
  }
  if (compiled.routerOpenExecute && compiled.tls?.clientCa === undefined) {
    app.log.warn(
      'WEFT_ROUTER_OPEN_EXECUTE: the router runs any registered action for anyone who can reach this server, without a credential; keep it on a private network',
    );
  }
  const executions =
    dependencies.executionsStore ?? ('executions' in opened ? opened.executions : undefined);
  const brokered = await openServerBroker(compiled, dependencies.broker);
  const tracked = executions ? trackInFlight(executions) : undefined;
  const runtimeSecrets = { get: async (name: string) => compiled.runtimeSecrets[name] };
  const served = tracked
    ? await serverAgents(compiled.agentsDir, store, runtimeSecrets, {
        egressAllowlist: compiled.egressAllowlist,
        publishedAgentSecrets: compiled.publishedAgentSecrets,
        turns: telemetry.tracing?.modelTurns,
        executions: tracked.store,
        served: servedVersionOf(router),
        onError: (error, slug) =>
          app.log.error({ err: error, slug }, 'a published agent could not be read'),
      })
    : undefined;
  const agents = served?.runner;
  // The AI SDK's warnings (an unsupported setting of a model) are log lines of the server.
  if (served) routeAiSdkWarnings(app.log);
  publishedAgents.current = served?.published;
  // Another replica's publications (PostgreSQL): read again when announced, all when missed.
  const unwatchAgents = served
    ? await store.watchPluginChanges((slug) => {
        void (slug === null ? served.published.load() : served.published.refresh(slug));
      })
    : undefined;
  const detectors = configuredDetectorsOf(
    compiled.moderation,
    (name) => compiled.runtimeSecrets[name],
    compiled.judge,
  );
  const retentionOverrides: { current?: () => Promise<RetentionOverride[]> } = {};
  const runtime = tracked
    ? new Runtime({
        ...(agents ? { agents } : {}),
        guardrails: { ...agents?.guardrailsOptions(), detectors },
        store: tracked.store,
        authenticate,
        actions: new RouterAndRegistryActions(
          router,
          store,
          brokered?.tasks,
          compiled.routerTimeoutMs,
        ),
        egressAllowlist: compiled.egressAllowlist,
        secrets: runtimeSecrets,
        // One server owns an embedded SQLite file: it takes over every unfinished execution.
        takeOverOnStart: !compiled.databaseUrl && !dependencies.executionsStore,
        replica: compiled.replicaId,
        retention: {
          ...(compiled.retentionDays > 0 ? { executionDays: compiled.retentionDays } : {}),
          ...(compiled.auditRetentionDays > 0 ? { auditDays: compiled.auditRetentionDays } : {}),
          // Deployed workflows' own retention (the triggers are built after the runtime).
          overrides: async () => (await retentionOverrides.current?.()) ?? [],
        },
        allowSelfApproval: compiled.allowSelfApproval,
        ...(compiled.maxForEachItems !== undefined
          ? { maxForEachItems: compiled.maxForEachItems }
          : {}),
        onError: (error, context) => app.log.error({ err: error }, context),
        onEnded: (execution) => logTriggeredEnd(app.log, execution),
        runLog: executionLog(app.log),
        ...(telemetry.tracing ? { tracing: telemetry.tracing } : {}),
        metrics: telemetry.metrics,
        ...auditOptions(
          dependencies.auditStore ?? ('audit' in opened ? opened.audit : undefined),
          app,
          compiled.identity.auditorRoles,
        ),
        ...dependencies.runtime,
      })
    : undefined;
  if (runtime) {
    await app.register(runtimeRoutes(runtime));
  }
  const triggerStore =
    dependencies.triggerStore ?? ('triggers' in opened ? opened.triggers : undefined);
  const triggers =
    runtime && deployments && triggerStore
      ? buildTriggers({
          app,
          runtime,
          registry: store,
          triggerStore,
          deploymentStore: deployments,
          options: compiled,
          authenticate,
          accessPolicy: () => identity.authenticator.accessPolicy,
          ...(served ? { refreshAgent: (slug) => served.published.refresh(slug) } : {}),
        })
      : undefined;
  if (triggers) {
    await app.register(triggers.plugin);
    retentionOverrides.current = () => triggers.service.retentionOverrides();
  }
  telemetry.metrics.observe(
    observedSources({
      replica: compiled.replicaId,
      routes: router.options.store,
      ...(tracked
        ? {
            inFlight: tracked.inFlight,
            claimable: () => tracked.store.claimableCount(Date.now()),
          }
        : {}),
      ...(brokered ? { broker: brokered.broker, resultsGroup: brokered.resultsGroup } : {}),
    }),
  );
  registerMetrics(
    app,
    { text: () => telemetry.prometheus(), json: () => telemetry.json() },
    authenticate,
  );
  dependencies.routes?.(app);
  await app.ready();
  await router.start();
  await runtime?.start();
  const close = async () => {
    identity.close();
    await unwatchAgents?.();
    await triggers?.close();
    await runtime?.close();
    await app.close();
    await router.close();
    await closeStores();
    await brokered?.close();
    // Last: the spans of runs that ended while closing are sent.
    if (!dependencies.telemetry) await telemetry.shutdown();
  };
  try {
    await triggers?.start(compiled.triggers.workflowsDir);
  } catch (error) {
    // A guarded workflow the workflows directory may not deploy: the server does not start.
    await close();
    throw error;
  }
  return {
    app,
    store,
    router,
    runtime,
    triggers,
    identity,
    broker: brokered,
    storage: opened.description,
    telemetry,
    options: compiled,
    close,
  };
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

/** Fastify's `https` options: the server certificate, and client certificates when a CA is set. */
function httpsOptions(compiled: CompiledServerOptions): FastifyServerOptions {
  const tls = compiled.tls;
  if (!tls) return {};
  return {
    https: {
      cert: readFileSync(tls.cert),
      key: readFileSync(tls.key),
      ...(tls.clientCa
        ? { ca: readFileSync(tls.clientCa), requestCert: true, rejectUnauthorized: false }
        : {}),
    },
  } as FastifyServerOptions;
}
