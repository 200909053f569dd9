import type { FastifyInstance } from 'fastify';
import type { RegistryStore } from '@weft/core';
import type { Router } from '@weft/router';
import type { Runtime, Triggers } from '@weft/runtime';
import type { Sandbox } from '@weft/sdk';
import type { Telemetry } from '@weft/telemetry/setup';
import { openBroker } from './build/broker.js';
import type { ServerDependencies } from './build/context.js';
import { DisposalStack } from './build/disposal.js';
import { openHttp } from './build/http.js';
import { mountRegistry } from './build/registry.js';
import { mountRouter } from './build/router.js';
import { mountRuntime } from './build/runtime.js';
import { openSandbox } from './build/sandbox.js';
import { startServing } from './build/start.js';
import { openStores } from './build/stores.js';
import { openTelemetry } from './build/telemetry.js';
import { mountTriggers } from './build/triggers.js';
import { compileServerOptions, type CompiledServerOptions, type ServerOptions } from './config.js';
import type { ServerIdentity } from './identity.js';
import type { ServerBroker } from './server-broker.js';

export type { ServerDependencies } from './build/context.js';
export { storeOptionsOf, SERVER_SQLITE_READERS } from './build/stores.js';

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
  /** The connector sandbox: what this host enforces (`sandbox.report()`). */
  sandbox: Sandbox;
  options: CompiledServerOptions;
  /**
   * Closes what the build opened, last opened first: the triggers, the runtime, the HTTP server
   * (then the router), the stores and the broker it opened, and telemetry it started.
   */
  close(): Promise<void>;
}

/**
 * Builds the platform server on one Fastify instance, in phases: telemetry, the broker, the
 * stores, the HTTP app, the connector sandbox (logging what this host enforces), the registry
 * (and the authenticator), the router, the runtime (dispatch and agents), the triggers, then
 * starting them. Each phase pushes what it opened onto one
 * {@link DisposalStack}: when a phase throws, everything opened before is closed, in reverse
 * order, before the error reaches the caller, and the server's `close` empties the same stack.
 */
export async function buildServer(
  options: ServerOptions = {},
  dependencies: ServerDependencies = {},
): Promise<BuiltServer> {
  const compiled = compileServerOptions(options);
  const stack = new DisposalStack();
  const context = { options: compiled, dependencies, stack };
  return stack.build(async () => {
    const telemetry = openTelemetry(context);
    const broker = await openBroker(context);
    const stores = await openStores(context);
    const app = await openHttp(context, telemetry, stores);
    const sandbox = await openSandbox(context, app);
    const registry = await mountRegistry(context, app, stores);
    const { identity } = registry;
    const router = await mountRouter(context, app, stores, identity.authenticator.authenticate);
    const parts = { app, stores, registry, router, broker, telemetry };
    const runtime = await mountRuntime(context, parts);
    const triggers = await mountTriggers(context, app, stores, registry, runtime);
    await startServing(context, { ...parts, runtime, triggers });
    return {
      app,
      store: stores.registry,
      router,
      runtime: runtime?.runtime,
      triggers,
      identity,
      broker,
      storage: stores.description,
      telemetry,
      sandbox,
      options: compiled,
      close: () => stack.close(),
    };
  });
}
