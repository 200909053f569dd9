import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import {
  fromErrorObject,
  UnavailableError,
  type ActionCall,
  type ActionInvoker,
  type InvocationResult,
  type RegistryStore,
} from '@weft/core';
import type { TaskDispatcher } from '@weft/broker';
import type { Router } from '@weft/router';
import { CallbackEgress, type ServerActions } from '@weft/runtime';
import { LocalInvoker, type LocalInvokerOptions } from '@weft/sdk';
import { injectTraceContext } from '@weft/telemetry';
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

/** The egress policy of the `http` requests of published plugins (see {@link pluginEgress}). */
export type PluginEgress = NonNullable<LocalInvokerOptions['httpEgress']>;

/**
 * Where the server sends the `http` requests of published plugins (whose URLs any key holder
 * writes): the policy of callbacks — public addresses only; loopback, private, link-local and
 * metadata addresses only inside `allowlist` (`WEFT_EGRESS_ALLOWLIST`). Every address the host
 * resolves to is checked before connecting, and the address connected to again at connect time
 * (DNS rebinding). `resolve` replaces DNS (tests).
 */
export function pluginEgress(
  allowlist: readonly string[],
  resolve: (host: string) => Promise<string[]> = resolveAll,
): PluginEgress {
  const policy = new CallbackEgress(allowlist, resolve, 'published plugins are called on');
  const checked = policy.lookup();
  const lookup: LookupFunction = (hostname, options, callback) =>
    checked(hostname, options, (error, address, family) => {
      if (error) error.message = named(hostname, error.message.replace(/^egress refused: /, ''));
      callback(error, address, family);
    });
  return {
    async refusal(url) {
      const host = url.hostname.replace(/^\[|\]$/g, '');
      let addresses: string[];
      try {
        addresses = isIP(host) ? [host] : await resolve(host);
      } catch {
        return undefined; // it fails to connect, as unreachable
      }
      for (const address of addresses) {
        const refusal = policy.refusal(address);
        if (refusal !== undefined) {
          return address === host ? refusal : named(host, refusal);
        }
      }
      return undefined;
    },
    lookup,
  };
}

/** The refusal of an address `host` resolves to. */
function named(host: string, refusal: string): string {
  return `${host} resolves to ${refusal.split(' ', 1)[0]}: ${refusal}`;
}

async function resolveAll(host: string): Promise<string[]> {
  return (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);
}

/**
 * How `weft server` runs actions (docs/protocol.md#execution-modes, `cloud`): through the router when an
 * instance serving the plugin is registered, otherwise through a published plugin whose
 * definition has an `http` connector block (its declarative requests, or its connector service
 * at `base_url`). Anything else is `UNAVAILABLE`, and refused before a run starts. With a
 * broker (`tasks`), an action whose registered instances all take tasks by broker
 * (`metadata.transport: "broker"`) is sent as a task message (docs/protocol.md#broker-tasks) instead. The requests of
 * published plugins obey `egress` (default: {@link pluginEgress} over the router's
 * `egressAllowlist`, which is the server's `WEFT_EGRESS_ALLOWLIST`).
 */
export class RouterAndRegistryActions implements ServerActions {
  private readonly invokers = new Map<string, Promise<LocalInvoker | undefined>>();

  constructor(
    private readonly router: Router,
    private readonly registry: RegistryStore,
    private readonly tasks?: TaskDispatcher,
    private readonly taskTimeoutMs = 120_000,
    private readonly egress: PluginEgress = pluginEgress(router.options.egress.allowlist),
  ) {}

  invoker(): ActionInvoker {
    return { invoke: (call) => this.invoke(call) };
  }

  async unavailable(targets: readonly ActionCall['target'][]): Promise<string[]> {
    const missing: string[] = [];
    let fresh = false;
    for (const target of targets) {
      const { slug, version } = pluginOf(target);
      if (this.router.table.instancesOf(slug).length > 0) continue;
      if (await this.published(slug, version)) continue;
      // Not refused on this replica's copy of the table: another one may have just registered it.
      if (!fresh) {
        await this.router.table.refresh();
        fresh = true;
        if (this.router.table.instancesOf(slug).length > 0) continue;
      }
      missing.push(target.kind === 'plugin' ? slug : target.ref);
    }
    return missing;
  }

  private async invoke(call: ActionCall, fresh = false): Promise<InvocationResult> {
    const { slug, version } = pluginOf(call.target);
    if (this.tasks && servedByBrokerOnly(this.router, slug, call.action)) {
      return invokeByBroker(this.tasks, slug, call, this.taskTimeoutMs);
    }
    if (this.router.table.pick(slug, call.action)) {
      // The run's signal (cancel, step timeout) reaches the instance's handler: the router
      // closes the call's connection, and the connector service aborts the handler's signal.
      const answer = await this.router.dispatcher.execute(
        slug,
        call.action,
        call.input,
        // The router forwards `traceparent`: the connector service continues the action's span.
        injectTraceContext({ 'idempotency-key': call.context.idempotencyKey }),
        undefined,
        call.context.signal,
      );
      const body = JSON.parse(answer.body.toString()) as Record<string, unknown>;
      if (body['status'] === 'success') return { output: body['data'] ?? {} };
      throw fromErrorObject(body);
    }
    const local = await this.localInvoker(slug, version);
    if (!local && !fresh) {
      // Not refused on this replica's copy of the table: another one may have just registered it.
      await this.router.table.refresh();
      return this.invoke(call, true);
    }
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
    // A published agent (kind `agent`) has no actions to run.
    if (!state || state.plugin.kind !== 'plugin') return false;
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
    const invoker = new LocalInvoker({ httpEgress: this.egress });
    invoker.registerConnectorSource(body, `${slug}@${chosen}`);
    return invoker;
  }
}
