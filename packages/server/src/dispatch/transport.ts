import type { TaskDispatcher } from '@weft/broker';
import type { Router } from '@weft/router';
import type { LocalInvoker } from '@weft/sdk';
import { isBrokerInstance } from './broker.js';
import type { PublishedPlugins } from './published.js';

/**
 * How one action call leaves the server: as a broker task, through the router to a registered
 * instance, or by a published plugin's `http` connector block run in this process.
 */
export type Transport =
  | { via: 'broker'; tasks: TaskDispatcher }
  | { via: 'router' }
  /** `invoker` is absent when the question named no action (see {@link transportOf}). */
  | { via: 'published'; invoker?: LocalInvoker };

/** What {@link transportOf} looks at. */
export interface TransportPlaces {
  router: Router;
  published: Pick<PublishedPlugins, 'listed' | 'invoker'>;
  /** Task dispatch, when a broker is configured. */
  tasks: TaskDispatcher | undefined;
}

/** What is asked: a plugin, the action called (none: any action) and a pinned version. */
export interface TransportQuestion {
  slug: string;
  action?: string | undefined;
  version?: string | undefined;
}

/**
 * Reads the routing table from the store again, at most once per question (or per batch of
 * them): answers false when it already has. A refusal never rests on this replica's copy of the
 * table alone, since another replica may have registered an instance a moment ago.
 */
export type RefreshOnce = () => Promise<boolean>;

/** A {@link RefreshOnce} over `router`'s table. */
export function refreshOnce(router: Router): RefreshOnce {
  let done = false;
  return async () => {
    if (done) return false;
    done = true;
    await router.table.refresh();
    return true;
  };
}

/**
 * The dispatch decision, in this order (docs/protocol.md#execution-modes, `cloud`):
 *
 * 1. **broker**: a broker is configured and every instance serving the action that is not
 *    unhealthy registered with `metadata.transport: "broker"`; as long as one HTTP instance
 *    serves it, the router calls that one;
 * 2. **router**: an instance serving the action is registered;
 * 3. **published**: the plugin is published with an `http` connector block (pinned version, or
 *    the latest).
 *
 * Nothing found: the table is read again once and the question asked again; then undefined
 * (`UNAVAILABLE`). Without an action (the check before a run starts) any registered instance
 * counts, and any published version of the plugin.
 */
export async function transportOf(
  places: TransportPlaces,
  question: TransportQuestion,
  refresh: RefreshOnce,
): Promise<Transport | undefined> {
  const { router, published, tasks } = places;
  const { slug, action, version } = question;
  for (;;) {
    if (tasks && servedByBrokerOnly(router, slug, action)) return { via: 'broker', tasks };
    if (action === undefined) {
      if (router.table.instancesOf(slug).length > 0) return { via: 'router' };
      if (await published.listed(slug, version)) return { via: 'published' };
    } else {
      // `serves`, not `pick`: deciding must not take a turn of the round-robin the call takes.
      if (router.table.serves(slug, action)) return { via: 'router' };
      const invoker = await published.invoker(slug, version);
      if (invoker) return { via: 'published', invoker };
    }
    if (!(await refresh())) return undefined;
  }
}

/**
 * Whether every instance of `slug` that serves `action` (any action when none is named) and is
 * not unhealthy takes it by broker, and there is one.
 */
function servedByBrokerOnly(router: Router, slug: string, action: string | undefined): boolean {
  let broker = false;
  for (const instance of router.table.instancesOf(slug)) {
    if (action !== undefined && !instance.actions.has(action)) continue;
    if (instance.health === 'unhealthy') continue;
    if (!isBrokerInstance(instance.record.metadata)) return false;
    broker = true;
  }
  return broker;
}
