import { sql, type Kysely } from 'kysely';
import {
  UNFINISHED_STATUSES,
  type CallbackAttempt,
  type CallbackState,
  type UsageDelta,
  type UsageRow,
} from '@weft/core';
import type { Database, Dialect } from './database.js';
import { USAGE_SHARDS } from './usage-shards-migration.js';

/**
 * The bookkeeping of the executions store: completion callbacks (attempts and delivery state),
 * usage per key and day, and callback signing secrets.
 */
export class ExecutionAccounts {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  async recordCallback(id: string, attempt: CallbackAttempt, state: CallbackState): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('callback_attempts')
        .values({ execution_id: id, ...attempt })
        .onConflict((oc) => oc.columns(['execution_id', 'attempt']).doNothing())
        .execute();
      await trx
        .updateTable('executions')
        .set({ callback: JSON.stringify(state) })
        .where('id', '=', id)
        .execute();
    });
  }

  async callbackAttempts(id: string): Promise<CallbackAttempt[]> {
    const rows = await this.db
      .selectFrom('callback_attempts')
      .select(['attempt', 'at', 'status', 'error', 'duration_ms'])
      .where('execution_id', '=', id)
      .orderBy('attempt')
      .execute();
    return rows.map((r) => ({
      ...r,
      attempt: Number(r.attempt),
      duration_ms: Number(r.duration_ms),
    }));
  }

  async pendingCallbacks(limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('executions')
      .select('id')
      .where('status', 'not in', [...UNFINISHED_STATUSES])
      .where('callback', 'like', '{"status":"pending"%')
      .limit(limit)
      .execute();
    return rows.map((r) => r.id);
  }

  /** Adds to a key's day: on PostgreSQL to a random shard of it, on SQLite to shard 0. */
  async addUsage(keyId: string, owner: string, date: string, delta: UsageDelta): Promise<void> {
    const shard = this.dialect === 'postgres' ? Math.floor(Math.random() * USAGE_SHARDS) : 0;
    await this.db
      .insertInto('usage_days')
      .values({ key_id: keyId, owner, date, shard, ...delta })
      .onConflict((oc) =>
        oc.columns(['key_id', 'date', 'shard']).doUpdateSet({
          executions: sql`usage_days.executions + ${delta.executions}`,
          action_calls: sql`usage_days.action_calls + ${delta.action_calls}`,
          duration_ms: sql`usage_days.duration_ms + ${delta.duration_ms}`,
        }),
      )
      .execute();
  }

  /** An owner's usage since `sinceDate` by day, then key: each key's day summed over its shards. */
  async usage(owner: string, sinceDate: string): Promise<UsageRow[]> {
    const rows = await this.db
      .selectFrom('usage_days')
      .select((eb) => [
        'key_id',
        'date',
        eb.fn.sum<number | string>('executions').as('executions'),
        eb.fn.sum<number | string>('action_calls').as('action_calls'),
        eb.fn.sum<number | string>('duration_ms').as('duration_ms'),
      ])
      .where('owner', '=', owner)
      .where('date', '>=', sinceDate)
      .groupBy(['date', 'key_id'])
      .orderBy('date')
      .orderBy('key_id')
      .execute();
    return rows.map((r) => ({
      key_id: r.key_id,
      date: r.date,
      executions: Number(r.executions),
      action_calls: Number(r.action_calls),
      duration_ms: Number(r.duration_ms),
    }));
  }

  async signingSecret(keyId: string, generate: () => string): Promise<string> {
    await this.db
      .insertInto('callback_secrets')
      .values({ key_id: keyId, secret: generate(), created_at: new Date().toISOString() })
      .onConflict((oc) => oc.column('key_id').doNothing())
      .execute();
    const row = await this.db
      .selectFrom('callback_secrets')
      .select('secret')
      .where('key_id', '=', keyId)
      .executeTakeFirstOrThrow();
    return row.secret;
  }
}
