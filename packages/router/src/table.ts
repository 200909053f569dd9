import { Pool } from 'undici';
import type { InstanceHealth, RouteInstance } from '@weft/core';
import { egressLookup } from './egress.js';
import type { CompiledRouterOptions } from './options.js';

/** One instance as dispatch sees it: its record, a keep-alive pool and its calls in flight. */
export interface LiveInstance {
  readonly key: string;
  record: RouteInstance;
  health: InstanceHealth;
  actions: ReadonlySet<string>;
  /** Path of `POST .../execute` on the instance's origin. */
  executePath: string;
  pool: Pool;
  origin: string;
  inFlight: number;
}

interface PluginRoutes {
  instances: LiveInstance[];
  next: number;
}

/**
 * This replica's copy of the routing table, read from the store on every change it makes and
 * every `refreshMs` (to see other replicas' changes), so that dispatch never waits for the
 * database when the copy has an instance. A miss is read through ({@link pickFresh},
 * {@link refresh}): a refusal never rests on a stale copy, so an instance registered on any
 * replica is usable on every one as soon as its register call has answered. Picks instances
 * round-robin: `ok` (and not yet checked) ones first, `degraded` ones only when no `ok` one
 * serves the action.
 */
export class RoutingTable {
  private plugins = new Map<string, PluginRoutes>();
  private readonly byKey = new Map<string, LiveInstance>();
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  private again = false;
  /** The earliest `next_check_at` of the copy (0 until the first read: due). */
  private nextCheckAt = 0;
  /** Told when a read brings the earliest check forward (the health checker sleeps until it). */
  onEarlierCheck: ((at: number) => void) | undefined;

  constructor(private readonly options: CompiledRouterOptions) {}

  /** Loads the table and keeps it fresh until {@link close}. */
  async start(): Promise<void> {
    await this.refresh();
    const tick = () => {
      this.timer = setTimeout(() => void this.refresh().finally(tick), this.options.refreshMs);
      this.timer.unref();
    };
    tick();
  }

  /**
   * Re-reads the store; resolves once a read that started after this call has been applied
   * (calls made during a read are coalesced into one more read).
   */
  refresh(): Promise<void> {
    if (this.refreshing) {
      this.again = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      try {
        do {
          this.again = false;
          this.apply(await this.options.store.list());
        } while (this.again);
      } catch {
        // Keep the last table while the store is unreachable; the next refresh tries again.
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }

  /**
   * Whether a health check may be due at `now` by this copy: false lets the health checker skip
   * the store. A stale copy errs towards true, as checks only move later; a registration, which
   * moves one earlier, refreshes the copy of its replica (others see it within `refreshMs`).
   */
  checkMayBeDue(now: number): boolean {
    return this.nextCheckAt <= now;
  }

  /** When the earliest check of this copy is due (Infinity when there is no instance). */
  get earliestCheckAt(): number {
    return this.nextCheckAt;
  }

  /** Sets an instance's health at once (this replica just checked it). */
  setHealth(pluginSlug: string, instanceId: string, health: InstanceHealth | 'removed'): void {
    const live = this.byKey.get(keyOf(pluginSlug, instanceId));
    if (!live) return;
    if (health === 'removed') live.health = 'unhealthy';
    else live.health = health;
  }

  /** The next instance for `action` of `pluginSlug`, skipping `tried`; undefined when none is left. */
  pick(
    pluginSlug: string,
    action: string,
    tried?: ReadonlySet<LiveInstance>,
  ): LiveInstance | undefined {
    const routes = this.plugins.get(pluginSlug);
    if (!routes) return undefined;
    const list = routes.instances;
    const n = list.length;
    let degraded: LiveInstance | undefined;
    for (let i = 0; i < n; i++) {
      const candidate = list[(routes.next + i) % n]!;
      if (!candidate.actions.has(action) || tried?.has(candidate)) continue;
      const health = candidate.health;
      if (health === 'ok' || health === 'unknown') {
        routes.next = (routes.next + i + 1) % n;
        return candidate;
      }
      if (health === 'degraded' && degraded === undefined) degraded = candidate;
    }
    if (degraded) routes.next = (list.indexOf(degraded) + 1) % n;
    return degraded;
  }

  /**
   * {@link pick}, reading the store through when this copy has no instance for `action`: the
   * instance may have registered on another replica since the last refresh.
   */
  async pickFresh(pluginSlug: string, action: string): Promise<LiveInstance | undefined> {
    const found = this.pick(pluginSlug, action);
    if (found) return found;
    await this.refresh();
    return this.pick(pluginSlug, action);
  }

  /** Whether an instance that is not unhealthy serves `action` (no round-robin side effect). */
  serves(pluginSlug: string, action: string): boolean {
    return (this.plugins.get(pluginSlug)?.instances ?? []).some(
      (i) => i.actions.has(action) && i.health !== 'unhealthy',
    );
  }

  /** The instances of a plugin in the table (for error messages). */
  instancesOf(pluginSlug: string): readonly LiveInstance[] {
    return this.plugins.get(pluginSlug)?.instances ?? [];
  }

  /** Calls in flight to an instance from this replica. */
  inFlight(pluginSlug: string, instanceId: string): number {
    return this.byKey.get(keyOf(pluginSlug, instanceId))?.inFlight ?? 0;
  }

  /** Stops refreshing and closes every connection. */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    await this.refreshing;
    const pools = [...this.byKey.values()].map((l) => l.pool.destroy().catch(() => undefined));
    this.byKey.clear();
    this.plugins = new Map();
    await Promise.all(pools);
  }

  private apply(records: RouteInstance[]): void {
    const seen = new Set<string>();
    const plugins = new Map<string, PluginRoutes>();
    let nextCheckAt = Infinity;
    for (const record of records) {
      nextCheckAt = Math.min(nextCheckAt, record.next_check_at);
      const key = keyOf(record.plugin_slug, record.instance_id);
      seen.add(key);
      const live = this.upsert(key, record);
      let routes = plugins.get(record.plugin_slug);
      if (!routes) {
        routes = { instances: [], next: this.plugins.get(record.plugin_slug)?.next ?? 0 };
        plugins.set(record.plugin_slug, routes);
      }
      routes.instances.push(live);
    }
    for (const [key, live] of this.byKey) {
      if (seen.has(key)) continue;
      this.byKey.delete(key);
      // In-flight calls finish; the pool closes after them.
      void live.pool.close().catch(() => undefined);
    }
    this.plugins = plugins;
    const earlier = nextCheckAt < this.nextCheckAt;
    this.nextCheckAt = nextCheckAt;
    if (earlier) this.onEarlierCheck?.(nextCheckAt);
  }

  private upsert(key: string, record: RouteInstance): LiveInstance {
    const url = new URL(record.url);
    const origin = url.origin;
    const executePath = `${url.pathname.replace(/\/+$/, '')}/execute`;
    const existing = this.byKey.get(key);
    if (existing && existing.origin === origin) {
      existing.record = record;
      existing.health = record.health;
      existing.actions = new Set(record.actions);
      existing.executePath = executePath;
      return existing;
    }
    if (existing) void existing.pool.close().catch(() => undefined);
    const live: LiveInstance = {
      key,
      record,
      health: record.health,
      actions: new Set(record.actions),
      executePath,
      origin,
      pool: new Pool(origin, {
        connections: this.options.connectionsPerInstance,
        keepAliveTimeout: 30_000,
        maxResponseSize: this.options.maxResponseBytes,
        connect: { lookup: egressLookup(this.options.egress) },
      }),
      inFlight: 0,
    };
    this.byKey.set(key, live);
    return live;
  }
}

function keyOf(pluginSlug: string, instanceId: string): string {
  return `${pluginSlug}\u0000${instanceId}`;
}
