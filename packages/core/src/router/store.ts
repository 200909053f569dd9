import type { InstanceHealth } from './wire.js';

/** One instance of the routing table, as a store keeps it. */
export interface RouteInstance {
  plugin_slug: string;
  instance_id: string;
  version: string;
  url: string;
  actions: string[];
  health_check_url: string;
  region: string | null;
  /** The registration's whole `metadata` object. */
  metadata: Record<string, unknown>;
  /** First registration (ISO 8601 UTC); kept when the instance registers again. */
  registered_at: string;
  /** Last registration (ISO 8601 UTC). */
  updated_at: string;
  health: InstanceHealth;
  last_check_at: string | null;
  last_error: string | null;
  consecutive_failures: number;
  /** When the next health check is due (ms since the epoch). */
  next_check_at: number;
}

/** A validated registration to store. */
export interface NewRegistration {
  plugin_slug: string;
  instance_id: string;
  version: string;
  url: string;
  actions: string[];
  health_check_url: string;
  region: string | null;
  metadata: Record<string, unknown>;
  /** Now (ISO 8601 UTC). */
  at: string;
  /** When the first (or next) health check is due, ms since the epoch. */
  check_at: number;
}

/** The outcome of one health check, reported by the replica that holds the check's lease. */
export interface CheckOutcome {
  plugin_slug: string;
  instance_id: string;
  /** The lease owner that ran the check. */
  owner: string;
  /** When the check finished (ISO 8601 UTC). */
  at: string;
  /** `ok`/`degraded`: a good answer; `unhealthy`: a failure (counts towards removal). */
  health: 'ok' | 'degraded' | 'unhealthy';
  /** Why it failed (`unhealthy` only). */
  error: string | null;
  /** When the next check is due, ms since the epoch. */
  next_check_at: number;
  /** Consecutive failures that remove the instance. */
  max_failures: number;
}

/** What {@link RoutesStore.recordCheck} did. */
export type CheckRecorded = 'kept' | 'removed' | 'stale';

/**
 * Storage port of the router's routing table (docs/router.md#health-checks). Several server replicas share
 * one table; health checks are claimed with a lease so that one replica checks an instance at
 * a time. Every method is atomic.
 */
export interface RoutesStore {
  /**
   * Adds an instance, or updates the one with the same `plugin_slug` and `instance_id` while
   * keeping its `registered_at` and health history (status, last check, failures); its next
   * check becomes due at `check_at` at the latest. `created` tells which happened.
   */
  register(registration: NewRegistration): Promise<{ created: boolean; instance: RouteInstance }>;
  /** Removes an instance; false when it was not in the table. */
  deregister(pluginSlug: string, instanceId: string): Promise<boolean>;
  /** The whole table, ordered by plugin slug, then instance id. */
  list(): Promise<RouteInstance[]>;
  /**
   * Claims up to `limit` instances whose check is due at `now` (ms) and whose lease is free or
   * expired, leasing them to `owner` until `now + leaseMs`. Returns the claimed instances.
   */
  claimDue(owner: string, now: number, leaseMs: number, limit: number): Promise<RouteInstance[]>;
  /**
   * Records a check made under `owner`'s lease and releases the lease. A failure increments
   * `consecutive_failures` and removes the instance when it reaches `max_failures`; a success
   * resets it. `stale` when the lease is no longer `owner`'s (or the instance is gone).
   */
  recordCheck(outcome: CheckOutcome): Promise<CheckRecorded>;
}
