import type { RegistryStore } from '@weft/core';
import { LocalInvoker } from '@weft/sdk';
import type { PluginEgress } from './egress.js';

/** How long the invoker of a plugin's latest version is kept before the registry is read again. */
const LATEST_TTL_MS = 30_000;

/**
 * Plugins published to the server's registry, as the dispatch sees them: whether one is listed,
 * and a local invoker over a definition with an `http` connector block (its declarative
 * requests, or its connector service at `base_url`), whose requests obey `egress`.
 */
export class PublishedPlugins {
  private readonly invokers = new Map<string, Promise<LocalInvoker | undefined>>();

  constructor(
    private readonly registry: RegistryStore,
    private readonly egress: PluginEgress,
  ) {}

  /** Whether a plugin (not an agent) has a version that is not removed (`version`, when given). */
  async listed(slug: string, version?: string): Promise<boolean> {
    const state = await this.registry.getPlugin(slug);
    // A published agent (kind `agent`) has no actions to run.
    if (!state || state.plugin.kind !== 'plugin') return false;
    return state.versions.some(
      (v) => v.status !== 'removed' && (version === undefined || v.version === version),
    );
  }

  /** A local invoker over the published definition (cached per version); none without `http`. */
  invoker(slug: string, version?: string): Promise<LocalInvoker | undefined> {
    const key = `${slug}@${version ?? 'latest'}`;
    let found = this.invokers.get(key);
    if (!found) {
      found = this.load(slug, version);
      this.invokers.set(key, found);
      // Latest moves on: forget it after a while.
      if (version === undefined) setTimeout(() => this.invokers.delete(key), LATEST_TTL_MS).unref();
    }
    return found;
  }

  private async load(slug: string, version?: string): Promise<LocalInvoker | undefined> {
    const state = await this.registry.getPlugin(slug);
    const chosen = version ?? state?.plugin.listing?.latest_version;
    if (!chosen) return undefined;
    const definition = await this.registry.getDefinition(slug, chosen);
    if (definition?.connector?.kind !== 'http') return undefined;
    const body = await this.registry.getBody(slug, chosen);
    if (!body) return undefined;
    const invoker = new LocalInvoker({ httpEgress: this.egress });
    invoker.registerConnectorSource(body, `${slug}@${chosen}`);
    return invoker;
  }
}
