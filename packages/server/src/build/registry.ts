import type { FastifyInstance } from 'fastify';
import { registryPlugin } from '@weft/registry';
import { pluginUsage } from '@weft/runtime';
import { openIdentity, type ServerIdentity } from '../identity.js';
import {
  publishedAgentVersions,
  registryAgentCheck,
  type PublishedAgents,
} from '../published-agents.js';
import { latestVersionOf } from '../triggers.js';
import type { BuildContext } from './context.js';
import type { ServerStores } from './stores.js';

/** What the registry phase gives the later ones. */
export interface MountedRegistry {
  /** The one authenticator of every route, and the access file's watcher. */
  identity: ServerIdentity;
  /**
   * Agents published to the registry, resolved by agent steps: set by the runtime phase, told of
   * each publication here.
   */
  publishedAgents: { current?: PublishedAgents | undefined };
}

/**
 * The registry phase: the authenticator (API keys from the store, identity-provider tokens, the
 * access file, whose watcher it pushes; a bad access file throws here) and the registry's routes
 * on `app`.
 */
export async function mountRegistry(
  { options, dependencies, stack }: BuildContext,
  app: FastifyInstance,
  stores: ServerStores,
): Promise<MountedRegistry> {
  const store = stores.registry;
  const identity = openIdentity(options.identity, store, app.log);
  stack.push(() => identity.close());
  const publishedAgents: MountedRegistry['publishedAgents'] = {};
  const deployments = stores.deployments;
  await app.register(
    registryPlugin({
      store,
      authenticate: identity.authenticator.authenticate,
      agents: registryAgentCheck,
      onChange: (slug) => publishedAgents.current?.refresh(slug),
      private: options.private,
      ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
      ...(options.bodyLimit !== undefined ? { bodyLimit: options.bodyLimit } : {}),
      ...(options.cacheTtlMs !== undefined ? { cacheTtlMs: options.cacheTtlMs } : {}),
      ...(options.downloadFlushMs !== undefined
        ? { downloadFlushMs: options.downloadFlushMs }
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
  return { identity, publishedAgents };
}
