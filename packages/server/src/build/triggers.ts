import type { FastifyInstance } from 'fastify';
import type { Triggers } from '@weft/runtime';
import { buildTriggers } from '../triggers.js';
import type { BuildContext } from './context.js';
import type { MountedRegistry } from './registry.js';
import type { MountedRuntime } from './runtime.js';
import type { ServerStores } from './stores.js';

/**
 * The triggers phase: deployed workflows, webhooks, schedules and event sources with their
 * routes on `app`, and their retention given to the runtime's sweeper; pushes their close
 * (watchers, the scheduler, event source connections). None without a runtime or without the
 * deployment and trigger stores.
 */
export async function mountTriggers(
  { options, stack }: BuildContext,
  app: FastifyInstance,
  stores: ServerStores,
  registry: MountedRegistry,
  mounted: MountedRuntime | undefined,
): Promise<Triggers | undefined> {
  if (!mounted || !stores.deployments || !stores.triggers) return undefined;
  const { identity } = registry;
  const triggers = buildTriggers({
    app,
    runtime: mounted.runtime,
    registry: stores.registry,
    triggerStore: stores.triggers,
    deploymentStore: stores.deployments,
    options,
    authenticate: identity.authenticator.authenticate,
    accessPolicy: () => identity.authenticator.accessPolicy,
    refreshAgent: (slug) => mounted.agents.published.refresh(slug),
  });
  stack.push(() => triggers.close());
  await app.register(triggers.plugin);
  mounted.retentionOverrides.current = () => triggers.service.retentionOverrides();
  return triggers;
}
