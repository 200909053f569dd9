import { sql, type Kysely } from 'kysely';
import type { BucketSpec, DeliveryKey, FireKey, TokenResult, TriggerStore } from '@weft/core';
import type { Database, Dialect } from './database.js';
import type { SqliteGroupCommit } from './sqlite-group-commit.js';
import { LocalBuckets } from './token-bucket.js';

/**
 * The per-request webhook writes on SQLite, as fixed text (building them with Kysely cost ~8% of a
 * webhook's CPU; counting changes costs half of a `RETURNING` row, whose conflict left alone
 * changes none): remember a delivery id unless a live one exists (`scope`, `id`, `expires_at`,
 * `execution_id`, now), forget one (`scope`, `id`), and attach its execution (`execution_id`,
 * `scope`, `id`).
 */
const REMEMBER_SQLITE = `INSERT INTO webhook_deliveries (scope, delivery_id, expires_at, execution_id)
  VALUES (?, ?, ?, ?)
  ON CONFLICT (scope, delivery_id) DO UPDATE SET expires_at = excluded.expires_at,
    execution_id = excluded.execution_id
  WHERE webhook_deliveries.expires_at <= ?`;
const FORGET_SQLITE = 'DELETE FROM webhook_deliveries WHERE scope = ? AND delivery_id = ?';
const ATTACH_SQLITE =
  'UPDATE webhook_deliveries SET execution_id = ? WHERE scope = ? AND delivery_id = ?';
/** Claims one schedule fire on SQLite (`workflow`, `trigger_id`, `fire_at`, now): 1 row if won. */
const CLAIM_FIRE_SQLITE = `INSERT INTO schedule_fires (workflow, trigger_id, fire_at, claimed_at)
  VALUES (?, ?, ?, ?) ON CONFLICT (workflow, trigger_id, fire_at) DO NOTHING`;

/** Rows per multi-row statement (well under SQLite's variable limit). */
const CHUNK = 500;

/**
 * {@link TriggerStore} on SQLite or PostgreSQL. Replays and schedule fires are decided by unique
 * keys (one `INSERT ... ON CONFLICT` each), so replicas sharing a PostgreSQL database agree.
 * Rate-limit buckets live in the database on PostgreSQL (shared by replicas, one atomic upsert
 * per request) and in process memory on SQLite (one process owns the file).
 */
export class KyselyTriggerStore implements TriggerStore {
  readonly kind: string;
  private readonly local = new LocalBuckets();

  /**
   * On SQLite, `group` (the store's group commit) takes the per-request webhook writes, so that
   * those of concurrent requests share one commit.
   */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly group?: SqliteGroupCommit,
  ) {
    this.kind = dialect;
  }

  async rememberDelivery(scope: string, id: string, nowMs: number, expiresAtMs: number) {
    if (this.group) {
      const parameters = [scope, id, expiresAtMs, null, nowMs];
      return this.group.run(() => this.group!.affected(REMEMBER_SQLITE, parameters) > 0);
    }
    const row = await this.rememberQuery(scope, id, nowMs, expiresAtMs, null).executeTakeFirst();
    return row !== undefined;
  }

  async rememberDeliveries(
    keys: readonly DeliveryKey[],
    nowMs: number,
    expiresAtMs: number,
    executionId: string | undefined,
  ): Promise<number> {
    const group = this.group;
    if (group) {
      // One write of the group commit: the keys of a delivery cost one turn, and a refusal
      // deletes what this write remembered before the transaction commits.
      return group.run(() => {
        for (const [i, { scope, id }] of keys.entries()) {
          const remembered = [scope, id, expiresAtMs, executionId ?? null, nowMs];
          if (group.affected(REMEMBER_SQLITE, remembered) > 0) continue;
          for (const kept of keys.slice(0, i)) group.affected(FORGET_SQLITE, [kept.scope, kept.id]);
          return i;
        }
        return -1;
      });
    }
    for (const [i, { scope, id }] of keys.entries()) {
      const row = await this.rememberQuery(
        scope,
        id,
        nowMs,
        expiresAtMs,
        executionId ?? null,
      ).executeTakeFirst();
      if (row !== undefined) continue;
      for (const kept of keys.slice(0, i)) await this.forgetDelivery(kept.scope, kept.id);
      return i;
    }
    return -1;
  }

  private rememberQuery(
    scope: string,
    id: string,
    nowMs: number,
    expiresAtMs: number,
    executionId: string | null,
  ) {
    return this.db
      .insertInto('webhook_deliveries')
      .values({ scope, delivery_id: id, expires_at: expiresAtMs, execution_id: executionId })
      .onConflict((oc) =>
        oc
          .columns(['scope', 'delivery_id'])
          .doUpdateSet({ expires_at: expiresAtMs, execution_id: executionId })
          .where('webhook_deliveries.expires_at', '<=', nowMs),
      )
      .returning('scope');
  }

  async attachExecution(scope: string, id: string, executionId: string): Promise<void> {
    if (this.group) {
      const parameters = [executionId, scope, id];
      await this.group.run(() => this.group!.affected(ATTACH_SQLITE, parameters));
      return;
    }
    await this.db
      .updateTable('webhook_deliveries')
      .set({ execution_id: executionId })
      .where('scope', '=', scope)
      .where('delivery_id', '=', id)
      .execute();
  }

  async deliveryExecution(scope: string, id: string, nowMs: number) {
    const row = await this.db
      .selectFrom('webhook_deliveries')
      .select('execution_id')
      .where('scope', '=', scope)
      .where('delivery_id', '=', id)
      .where('expires_at', '>', nowMs)
      .executeTakeFirst();
    return row?.execution_id ?? undefined;
  }

  async forgetDelivery(scope: string, id: string): Promise<void> {
    await this.db
      .deleteFrom('webhook_deliveries')
      .where('scope', '=', scope)
      .where('delivery_id', '=', id)
      .execute();
  }

  async takeToken(key: string, spec: BucketSpec, nowMs: number): Promise<TokenResult> {
    if (this.dialect === 'sqlite') return this.local.take(key, spec, nowMs);
    const cap = sql`${spec.capacity}::double precision`;
    const rate = sql`${spec.refillPerMs}::double precision`;
    const now = sql`${nowMs}::bigint`;
    const refilled = sql`LEAST(${cap}, b.tokens + GREATEST(0, ${now} - b.updated_ms) * ${rate})`;
    const { rows } = await sql<{ tokens: number; last_allowed: number }>`
      INSERT INTO rate_buckets AS b (key, tokens, updated_ms, last_allowed)
      VALUES (${key}, ${cap} - 1, ${now}, 1)
      ON CONFLICT (key) DO UPDATE SET
        tokens = CASE WHEN ${refilled} >= 1 THEN ${refilled} - 1 ELSE ${refilled} END,
        last_allowed = CASE WHEN ${refilled} >= 1 THEN 1 ELSE 0 END,
        updated_ms = GREATEST(b.updated_ms, ${now})
      RETURNING tokens, last_allowed`.execute(this.db);
    const row = rows[0]!;
    if (Number(row.last_allowed) === 1) return { allowed: true, retryAfterMs: 0 };
    return {
      allowed: false,
      retryAfterMs: Math.ceil((1 - Number(row.tokens)) / spec.refillPerMs),
    };
  }

  async getNextFire(workflow: string, triggerId: string) {
    const row = await this.db
      .selectFrom('schedule_state')
      .select('next_fire_at')
      .where('workflow', '=', workflow)
      .where('trigger_id', '=', triggerId)
      .executeTakeFirst();
    return row === undefined ? undefined : Number(row.next_fire_at);
  }

  async setNextFire(workflow: string, triggerId: string, fireAtMs: number): Promise<void> {
    await this.db
      .insertInto('schedule_state')
      .values({ workflow, trigger_id: triggerId, next_fire_at: fireAtMs })
      .onConflict((oc) =>
        oc.columns(['workflow', 'trigger_id']).doUpdateSet({ next_fire_at: fireAtMs }),
      )
      .execute();
  }

  async clearSchedules(workflow: string): Promise<void> {
    await this.db.deleteFrom('schedule_state').where('workflow', '=', workflow).execute();
  }

  async claimFire(workflow: string, triggerId: string, fireAtMs: number, nowMs: number) {
    const row = await this.db
      .insertInto('schedule_fires')
      .values({ workflow, trigger_id: triggerId, fire_at: fireAtMs, claimed_at: nowMs })
      .onConflict((oc) => oc.columns(['workflow', 'trigger_id', 'fire_at']).doNothing())
      .returning('fire_at')
      .executeTakeFirst();
    return row !== undefined;
  }

  async claimFires(fires: readonly FireKey[], nowMs: number): Promise<FireKey[]> {
    if (this.group) {
      // One prepared insert per fire, all in one group commit: a burst of fires due together
      // is claimed in a few milliseconds instead of a Kysely build per chunk.
      return this.group.run(() =>
        fires.filter(
          (f) =>
            this.group!.affected(CLAIM_FIRE_SQLITE, [f.workflow, f.triggerId, f.fireAtMs, nowMs]) >
            0,
        ),
      );
    }
    const won: FireKey[] = [];
    for (let i = 0; i < fires.length; i += CHUNK) {
      const rows = await this.db
        .insertInto('schedule_fires')
        .values(
          fires.slice(i, i + CHUNK).map((f) => ({
            workflow: f.workflow,
            trigger_id: f.triggerId,
            fire_at: f.fireAtMs,
            claimed_at: nowMs,
          })),
        )
        .onConflict((oc) => oc.columns(['workflow', 'trigger_id', 'fire_at']).doNothing())
        .returning(['workflow', 'trigger_id', 'fire_at'])
        .execute();
      for (const r of rows) {
        won.push({ workflow: r.workflow, triggerId: r.trigger_id, fireAtMs: Number(r.fire_at) });
      }
    }
    return won;
  }

  async setNextFires(fires: readonly FireKey[]): Promise<void> {
    for (let i = 0; i < fires.length; i += CHUNK) {
      await this.db
        .insertInto('schedule_state')
        .values(
          fires.slice(i, i + CHUNK).map((f) => ({
            workflow: f.workflow,
            trigger_id: f.triggerId,
            next_fire_at: f.fireAtMs,
          })),
        )
        .onConflict((oc) =>
          oc
            .columns(['workflow', 'trigger_id'])
            .doUpdateSet((eb) => ({ next_fire_at: eb.ref('excluded.next_fire_at') })),
        )
        .execute();
    }
  }

  async prune(nowMs: number, beforeMs: number): Promise<void> {
    await this.db.deleteFrom('webhook_deliveries').where('expires_at', '<=', nowMs).execute();
    await this.db.deleteFrom('schedule_fires').where('claimed_at', '<', beforeMs).execute();
    if (this.dialect === 'postgres') {
      await this.db.deleteFrom('rate_buckets').where('updated_ms', '<', beforeMs).execute();
    }
  }
}
