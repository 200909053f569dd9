import type { FastifyInstance } from 'fastify';
import type { Router } from '@weft/router';
import type { Triggers } from '@weft/runtime';
import type { Telemetry } from '@weft/telemetry/setup';
import { registerMetrics } from '../metrics.js';
import type { ServerBroker } from '../server-broker.js';
import type { BuildContext } from './context.js';
import type { MountedRegistry } from './registry.js';
import type { MountedRuntime } from './runtime.js';
import { observeServer } from './telemetry.js';

/** Everything the phases before built, to start. */
export interface StartParts {
  app: FastifyInstance;
  telemetry: Telemetry;
  registry: MountedRegistry;
  router: Router;
  broker: ServerBroker | undefined;
  runtime: MountedRuntime | undefined;
  triggers: Triggers | undefined;
}

/**
 * The last phase: the metrics routes and the caller's, the app sealed, then the router's table
 * and health checks, the runtime's runs and the triggers started (each closed by what its phase
 * pushed). A guarded workflow the workflows directory may not deploy throws here.
 */
export async function startServing(context: BuildContext, parts: StartParts): Promise<void> {
  const { options, dependencies } = context;
  const { app, telemetry, router, runtime } = parts;
  observeServer(context, {
    telemetry,
    router,
    tracked: runtime?.tracked,
    broker: parts.broker,
  });
  registerMetrics(
    app,
    { text: () => telemetry.prometheus(), json: () => telemetry.json() },
    parts.registry.identity.authenticator.authenticate,
  );
  dependencies.routes?.(app);
  await app.ready();
  await router.start();
  await runtime?.runtime.start();
  await parts.triggers?.start(options.triggers.workflowsDir);
}
