import type { TaskDispatcher } from '@weft/broker';
import type { RegistryStore } from '@weft/core';
import type { Router } from '@weft/router';
import type { ServerActions } from '@weft/runtime';
import { DispatchActions } from './actions.js';
import { egressCheckedFetch, pluginEgress } from './egress.js';
import { PublishedPlugins } from './published.js';

/** The metrics count the queues of instances that take their actions by broker. */
export { isBrokerInstance } from './broker.js';

/** What {@link createDispatch} sends actions through. */
export interface DispatchOptions {
  /** The routing table and its dispatcher. */
  router: Router;
  /** Published plugins (`http` connector blocks) when no instance serves an action. */
  registry: RegistryStore;
  /** Task dispatch, when a broker is configured. */
  tasks?: TaskDispatcher | undefined;
  /** How long a broker task is waited for. Default 120 s. */
  taskTimeoutMs?: number | undefined;
  /** CIDRs published plugins and agents may reach although private. Default: the router's. */
  egressAllowlist?: readonly string[];
  /** Replaces DNS in the egress checks (tests). */
  resolve?: (host: string) => Promise<string[]>;
}

/** The server's dispatch: the runtime's actions port, and the egress of published agents. */
export interface ServerDispatch {
  /** How runs send their actions (give it to the runtime as `actions`). */
  actions: ServerActions;
  /**
   * `fetch` under the egress policy of published plugins, for the model of the published agent
   * `agentRef` (its `base_url` is anyone's to write): a refused address fails with `FORBIDDEN`.
   */
  publishedModelFetch(fetch: typeof globalThis.fetch, agentRef: string): typeof globalThis.fetch;
}

/**
 * Where `weft server` sends actions (docs/protocol.md#execution-modes, `cloud`), decided in one
 * place (`transportOf`): a broker task when every instance serving the action takes tasks
 * by broker (docs/protocol.md#broker-tasks), else the router when an instance serves it, else a
 * published plugin's `http` connector block (its declarative requests, or its connector service
 * at `base_url`). Anything else is `UNAVAILABLE`, and refused before a run starts. The requests
 * of published plugins and the model calls of published agents obey one egress policy
 * (`WEFT_EGRESS_ALLOWLIST`): public addresses only, each resolved
 * address checked before connecting and again at connect time.
 */
export function createDispatch(options: DispatchOptions): ServerDispatch {
  const { router } = options;
  const allowlist = options.egressAllowlist ?? router.options.egress.allowlist;
  const egress = pluginEgress(allowlist, options.resolve);
  const places = {
    router,
    published: new PublishedPlugins(options.registry, egress),
    tasks: options.tasks,
  };
  return {
    actions: new DispatchActions(places, options.taskTimeoutMs ?? 120_000),
    publishedModelFetch: (fetch, agentRef) => egressCheckedFetch(fetch, egress, agentRef),
  };
}
