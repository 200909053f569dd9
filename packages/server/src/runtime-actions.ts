import {
  fromErrorObject,
  UnavailableError,
  type ActionCall,
  type ActionInvoker,
  type RegistryStore,
  type TaskDispatcher,
} from '@weft/core';
import type { Router } from '@weft/router';
import type { ServerActions } from '@weft/runtime';
import { LocalInvoker } from '@weft/sdk';
import { invokeByBroker, servedByBrokerOnly } from './broker-dispatch.js';

/** A target as a plugin slug and, when pinned, a version (`connector:` refs: `ns/name@v`). */
export function pluginOf(target: ActionCall['target']): { slug: string; version?: string } {
  if (target.kind === 'plugin') return { slug: target.slug };
  const ref = target.ref.replace(/^connector:/, '');
  const at = ref.lastIndexOf('@');
  const name = at > 0 ? ref.slice(0, at) : ref;
  const slug = name.slice(name.lastIndexOf('/') + 1);
  return at > 0 ? { slug, version: ref.slice(at + 1) } : { slug };
}

/**
 * How `weft server` runs actions (SPEC.md Appendix A, `cloud`): through the router when an
 * instance serving the plugin is registered, otherwise through a published plugin whose
 * definition has an `http` connector block (its declarative requests, or its connector service
 * at `base_url`). Anything else is `UNAVAILABLE`, and refused before a run starts. With a
 * broker (`tasks`), an action whose registered instances all take tasks by broker
 * (`metadata.transport: "broker"`) is sent as a §2.12 task message instead.
 */
export class RouterAndRegistryActions implements ServerActions {
  private readonly invokers = new Map<string, Promise<LocalInvoker | undefined>>();

  constructor(
    private readonly router: Router,
    private readonly registry: RegistryStore,
    private readonly tasks?: TaskDispatcher,
    private readonly taskTimeoutMs = 120_000,
  ) {}

  invoker(): ActionInvoker {
    return { invoke: (call) => this.invoke(call) };
  }

  async unavailable(targets: readonly ActionCall['target'][]): Promise<string[]> {
    const missing: string[] = [];
    for (const target of targets) {
      const { slug, version } = pluginOf(target);
      if (this.router.table.instancesOf(slug).length > 0) continue;
      if (await this.published(slug, version)) continue;
      missing.push(target.kind === 'plugin' ? slug : target.ref);
    }
    return missing;
  }

  private async invoke(call: ActionCall): Promise<unknown> {
    const { slug, version } = pluginOf(call.target);
    if (this.tasks && servedByBrokerOnly(this.router, slug, call.action)) {
      return invokeByBroker(this.tasks, slug, call, this.taskTimeoutMs);
    }
    if (this.router.table.pick(slug, call.action)) {
      const answer = await this.router.dispatcher.execute(slug, call.action, call.input, {
        'idempotency-key': call.context.idempotencyKey,
      });
      const body = JSON.parse(answer.body.toString()) as Record<string, unknown>;
      if (body['status'] === 'success') return body['data'] ?? {};
      throw fromErrorObject(body);
    }
    const local = await this.localInvoker(slug, version);
    if (!local) {
      throw new UnavailableError(
        `plugin "${slug}" has no registered instance serving "${call.action}" and no published http connector`,
        {
          backend: slug,
          suggestion:
            'register an instance with the router, or publish the plugin with an http connector block',
        },
      );
    }
    return local.invoke({ ...call, target: { kind: 'plugin', slug } });
  }

  private async published(slug: string, version?: string): Promise<boolean> {
    const state = await this.registry.getPlugin(slug);
    if (!state) return false;
    return state.versions.some(
      (v) => v.status !== 'removed' && (version === undefined || v.version === version),
    );
  }

  /** A local invoker over the published definition (cached per version). */
  private localInvoker(slug: string, version?: string): Promise<LocalInvoker | undefined> {
    const key = `${slug}@${version ?? 'latest'}`;
    let found = this.invokers.get(key);
    if (!found) {
      found = this.loadInvoker(slug, version);
      this.invokers.set(key, found);
      // Latest moves on: forget it after a while.
      if (version === undefined) setTimeout(() => this.invokers.delete(key), 30_000).unref();
    }
    return found;
  }

  private async loadInvoker(slug: string, version?: string): Promise<LocalInvoker | undefined> {
    const state = await this.registry.getPlugin(slug);
    const chosen = version ?? state?.plugin.listing?.latest_version;
    if (!chosen) return undefined;
    const definition = await this.registry.getDefinition(slug, chosen);
    if (definition?.connector?.kind !== 'http') return undefined;
    const body = await this.registry.getBody(slug, chosen);
    if (!body) return undefined;
    const invoker = new LocalInvoker();
    invoker.registerConnectorSource(body, `${slug}@${chosen}`);
    return invoker;
  }
}
