import type { Kysely, Selectable } from 'kysely';
import type {
  CheckOutcome,
  CheckRecorded,
  InstanceHealth,
  NewRegistration,
  RouteInstance,
  RoutesStore,
} from '@weft/core';
import type { Database, Dialect, RouterInstancesTable } from './database.js';
import { isUniqueViolation } from './rows.js';

const COLUMNS = [
  'plugin_slug',
  'instance_id',
  'version',
  'url',
  'actions',
  'health_check_url',
  'region',
  'metadata',
  'registered_at',
  'updated_at',
  'health',
  'last_check_at',
  'last_error',
  'consecutive_failures',
  'next_check_at',
] as const;

type Row = Pick<Selectable<RouterInstancesTable>, (typeof COLUMNS)[number]>;

/**
 * The routing table over Kysely, for SQLite and PostgreSQL alike. Leases are claimed with a
 * conditional `UPDATE` (only one replica's update matches a free lease), so the same code is
 * safe on both.
 */
export class KyselyRoutesStore implements RoutesStore {
  constructor(
    private readonly db: Kysely<Database>,
    readonly kind: Dialect,
  ) {}

  async register(
    registration: NewRegistration,
  ): Promise<{ created: boolean; instance: RouteInstance }> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.upsert(registration);
      } catch (error) {
        // Two first registrations of one instance at the same time: the loser updates.
        if (attempt === 0 && isUniqueViolation(error)) continue;
        throw error;
      }
    }
  }

  private upsert(r: NewRegistration): Promise<{ created: boolean; instance: RouteInstance }> {
    return this.db.transaction().execute(async (trx) => {
      const fields = {
        version: r.version,
        url: r.url,
        actions: JSON.stringify(r.actions),
        health_check_url: r.health_check_url,
        region: r.region,
        metadata: JSON.stringify(r.metadata),
        updated_at: r.at,
      };
      let select = trx
        .selectFrom('router_instances')
        .select(['next_check_at'])
        .where('plugin_slug', '=', r.plugin_slug)
        .where('instance_id', '=', r.instance_id);
      if (this.kind === 'postgres') select = select.forUpdate();
      const existing = await select.executeTakeFirst();
      if (existing) {
        await trx
          .updateTable('router_instances')
          .set({ ...fields, next_check_at: Math.min(Number(existing.next_check_at), r.check_at) })
          .where('plugin_slug', '=', r.plugin_slug)
          .where('instance_id', '=', r.instance_id)
          .execute();
      } else {
        await trx
          .insertInto('router_instances')
          .values({
            ...fields,
            plugin_slug: r.plugin_slug,
            instance_id: r.instance_id,
            registered_at: r.at,
            health: 'unknown',
            next_check_at: r.check_at,
          })
          .execute();
      }
      const row = await trx
        .selectFrom('router_instances')
        .select(COLUMNS)
        .where('plugin_slug', '=', r.plugin_slug)
        .where('instance_id', '=', r.instance_id)
        .executeTakeFirstOrThrow();
      return { created: !existing, instance: toInstance(row) };
    });
  }

  async deregister(pluginSlug: string, instanceId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('router_instances')
      .where('plugin_slug', '=', pluginSlug)
      .where('instance_id', '=', instanceId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async list(): Promise<RouteInstance[]> {
    const rows = await this.db.selectFrom('router_instances').select(COLUMNS).execute();
    // Sorted here: PostgreSQL's collation may not be byte order.
    return rows
      .map(toInstance)
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
    const due = await this.db
      .selectFrom('router_instances')
      .select(COLUMNS)
      .where('next_check_at', '<=', now)
      .where('lease_until', '<=', now)
      .orderBy('next_check_at')
      .limit(limit)
      .execute();
    const claimed: RouteInstance[] = [];
    for (const row of due) {
      const result = await this.db
        .updateTable('router_instances')
        .set({ lease_owner: owner, lease_until: now + leaseMs })
        .where('plugin_slug', '=', row.plugin_slug)
        .where('instance_id', '=', row.instance_id)
        .where('lease_until', '<=', now)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 1) claimed.push(toInstance(row));
    }
    return claimed;
  }

  async recordCheck(outcome: CheckOutcome): Promise<CheckRecorded> {
    return this.db.transaction().execute(async (trx) => {
      let select = trx
        .selectFrom('router_instances')
        .select(['consecutive_failures'])
        .where('plugin_slug', '=', outcome.plugin_slug)
        .where('instance_id', '=', outcome.instance_id)
        .where('lease_owner', '=', outcome.owner);
      if (this.kind === 'postgres') select = select.forUpdate();
      const row = await select.executeTakeFirst();
      if (!row) return 'stale';
      const failed = outcome.health === 'unhealthy';
      const failures = failed ? Number(row.consecutive_failures) + 1 : 0;
      if (failed && failures >= outcome.max_failures) {
        await trx
          .deleteFrom('router_instances')
          .where('plugin_slug', '=', outcome.plugin_slug)
          .where('instance_id', '=', outcome.instance_id)
          .execute();
        return 'removed';
      }
      await trx
        .updateTable('router_instances')
        .set({
          health: outcome.health,
          last_check_at: outcome.at,
          last_error: outcome.error,
          consecutive_failures: failures,
          next_check_at: outcome.next_check_at,
          lease_owner: null,
          lease_until: 0,
        })
        .where('plugin_slug', '=', outcome.plugin_slug)
        .where('instance_id', '=', outcome.instance_id)
        .execute();
      return 'kept';
    });
  }
}

function toInstance(row: Row): RouteInstance {
  return {
    plugin_slug: row.plugin_slug,
    instance_id: row.instance_id,
    version: row.version,
    url: row.url,
    actions: JSON.parse(row.actions) as string[],
    health_check_url: row.health_check_url,
    region: row.region,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    registered_at: row.registered_at,
    updated_at: row.updated_at,
    health: row.health as InstanceHealth,
    last_check_at: row.last_check_at,
    last_error: row.last_error,
    consecutive_failures: Number(row.consecutive_failures),
    next_check_at: Number(row.next_check_at),
  };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
