import type {
  CheckOutcome,
  CheckRecorded,
  NewRegistration,
  RouteInstance,
  RoutesStore,
} from '@weft/core';

interface Row {
  instance: RouteInstance;
  leaseOwner: string | null;
  leaseUntil: number;
}

/**
 * The routing table in memory: for a single router process and for tests. Several replicas
 * need a shared store (SQLite file or PostgreSQL, `@weft/store`).
 */
export class MemoryRoutesStore implements RoutesStore {
  private readonly rows = new Map<string, Row>();

  async register(
    registration: NewRegistration,
  ): Promise<{ created: boolean; instance: RouteInstance }> {
    const key = keyOf(registration.plugin_slug, registration.instance_id);
    const existing = this.rows.get(key);
    const { at, check_at, ...fields } = registration;
    const instance: RouteInstance = existing
      ? {
          ...existing.instance,
          ...fields,
          updated_at: at,
          next_check_at: Math.min(existing.instance.next_check_at, check_at),
        }
      : {
          ...fields,
          registered_at: at,
          updated_at: at,
          health: 'unknown',
          last_check_at: null,
          last_error: null,
          consecutive_failures: 0,
          next_check_at: check_at,
        };
    this.rows.set(key, {
      instance,
      leaseOwner: existing?.leaseOwner ?? null,
      leaseUntil: existing?.leaseUntil ?? 0,
    });
    return { created: !existing, instance: clone(instance) };
  }

  async deregister(pluginSlug: string, instanceId: string): Promise<boolean> {
    return this.rows.delete(keyOf(pluginSlug, instanceId));
  }

  async list(): Promise<RouteInstance[]> {
    return [...this.rows.values()]
      .map((r) => clone(r.instance))
      .sort(
        (a, b) => compare(a.plugin_slug, b.plugin_slug) || compare(a.instance_id, b.instance_id),
      );
  }

  async claimDue(
    owner: string,
    now: number,
    leaseMs: number,
    limit: number,
  ): Promise<RouteInstance[]> {
    const claimed: RouteInstance[] = [];
    for (const row of this.rows.values()) {
      if (claimed.length >= limit) break;
      if (row.instance.next_check_at > now || row.leaseUntil > now) continue;
      row.leaseOwner = owner;
      row.leaseUntil = now + leaseMs;
      claimed.push(clone(row.instance));
    }
    return claimed;
  }

  async recordCheck(outcome: CheckOutcome): Promise<CheckRecorded> {
    const key = keyOf(outcome.plugin_slug, outcome.instance_id);
    const row = this.rows.get(key);
    if (!row || row.leaseOwner !== outcome.owner) return 'stale';
    const failed = outcome.health === 'unhealthy';
    const failures = failed ? row.instance.consecutive_failures + 1 : 0;
    if (failed && failures >= outcome.max_failures) {
      this.rows.delete(key);
      return 'removed';
    }
    row.instance = {
      ...row.instance,
      health: outcome.health,
      last_check_at: outcome.at,
      last_error: outcome.error,
      consecutive_failures: failures,
      next_check_at: outcome.next_check_at,
    };
    row.leaseOwner = null;
    row.leaseUntil = 0;
    return 'kept';
  }
}

function keyOf(pluginSlug: string, instanceId: string): string {
  return `${pluginSlug}\u0000${instanceId}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function clone(instance: RouteInstance): RouteInstance {
  return { ...instance, actions: [...instance.actions], metadata: { ...instance.metadata } };
}
