import type BetterSqlite3 from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import type pg from 'pg';
import { openPgPool } from './pg-pool.js';
import type {
  CallbackAttempt,
  CallbackState,
  CreateOutcome,
  EndWrites,
  EventRow,
  ExecutionLease,
  ExecutionOutcome,
  ExecutionQuery,
  ExecutionsStore,
  IdempotencyClaim,
  JournalRow,
  StoredExecution,
  UsageDelta,
  UsageRow,
} from '@weft/core';
import type { Database, Dialect } from './database.js';
import {
  PostgresJournalWriter,
  SqliteJournalWriter,
  type JournalWriter,
} from './executions-journal.js';
import { EXECUTION_COLUMNS, toExecutionRow, toStoredExecution } from './executions-rows.js';
import { isUniqueViolation } from './rows.js';
import type { SqliteGroupCommit } from './sqlite-group-commit.js';

const UNFINISHED = ['pending', 'running'];

/**
 * The runtime's store port over Kysely, for SQLite and PostgreSQL alike; the hot path (journal,
 * finish) goes through {@link JournalWriter}. It shares the registry store's connection and is
 * closed with it.
 */
export class KyselyExecutionsStore implements ExecutionsStore {
  private readonly writer: JournalWriter;

  /**
   * On SQLite, give the better-sqlite3 handle under `db` and its group commit (the hot writes
   * use them directly). On
   * PostgreSQL, give the pool under `db` (`records`) and the journal's own (`journal`, see
   * {@link openPostgresJournal}); the store closes the journal's.
   */
  constructor(
    private readonly db: Kysely<Database>,
    readonly kind: Dialect,
    sqlite?: { database: BetterSqlite3.Database; group: SqliteGroupCommit },
    private readonly postgres?: { records: pg.Pool; journal: pg.Pool },
  ) {
    if (sqlite) this.writer = new SqliteJournalWriter(sqlite.database, sqlite.group);
    else if (postgres) this.writer = new PostgresJournalWriter(postgres.records, postgres.journal);
    else throw new Error('an executions store needs its SQLite handle or PostgreSQL pools');
  }

  async create(
    execution: StoredExecution,
    idempotency?: IdempotencyClaim,
    lease?: ExecutionLease,
  ): Promise<CreateOutcome> {
    if (!idempotency) {
      await this.writer.insert(toExecutionRow(execution, lease));
      return { created: true, execution };
    }
    const existing = await this.byIdempotency(idempotency);
    if (existing) return existing;
    try {
      await this.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('execution_idempotency')
          .values({
            key_id: idempotency.key_id,
            idempotency_key: idempotency.key,
            execution_id: execution.id,
            fingerprint: idempotency.fingerprint,
            created_at: execution.created_at,
          })
          .execute();
        await trx.insertInto('executions').values(toExecutionRow(execution, lease)).execute();
      });
      return { created: true, execution };
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const winner = await this.byIdempotency(idempotency);
      if (!winner) throw error;
      return winner;
    }
  }

  private async byIdempotency(claim: IdempotencyClaim): Promise<CreateOutcome | undefined> {
    const row = await this.db
      .selectFrom('execution_idempotency')
      .select(['execution_id', 'fingerprint'])
      .where('key_id', '=', claim.key_id)
      .where('idempotency_key', '=', claim.key)
      .executeTakeFirst();
    const execution = row ? await this.get(row.execution_id) : undefined;
    return execution ? { created: false, execution, fingerprint: row!.fingerprint } : undefined;
  }

  async get(id: string): Promise<StoredExecution | undefined> {
    const row = await this.db
      .selectFrom('executions')
      .select(EXECUTION_COLUMNS)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toStoredExecution(row) : undefined;
  }

  async list(query: ExecutionQuery): Promise<StoredExecution[]> {
    let select = this.db
      .selectFrom('executions')
      .select(EXECUTION_COLUMNS)
      .where('owner', '=', query.owner);
    if (query.status) select = select.where('status', '=', query.status);
    if (query.workflow) select = select.where('workflow', '=', query.workflow);
    const after = query.after;
    if (after) {
      select = select.where((eb) =>
        eb.or([
          eb('created_at', '<', after.created_at),
          eb.and([eb('created_at', '=', after.created_at), eb('id', '<', after.id)]),
        ]),
      );
    }
    const rows = await select
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(query.limit)
      .execute();
    return rows.map(toStoredExecution);
  }

  async claim(
    id: string,
    worker: string,
    now: number,
    leaseUntil: number,
    startedAt: string,
  ): Promise<StoredExecution | undefined> {
    const row = await this.db
      .updateTable('executions')
      .set({
        status: 'running',
        lease_owner: worker,
        lease_until: leaseUntil,
        started_at: sql<string>`coalesce(started_at, ${startedAt})`,
      })
      .where('id', '=', id)
      .where((eb) =>
        eb.or([
          eb('status', '=', 'pending'),
          eb.and([eb('status', '=', 'running'), eb('lease_until', '<', now)]),
        ]),
      )
      .returning(EXECUTION_COLUMNS)
      .executeTakeFirst();
    return row ? toStoredExecution(row) : undefined;
  }

  async claimable(now: number, limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('executions')
      .select('id')
      .where('status', 'in', UNFINISHED)
      .where('lease_until', '<', now)
      .orderBy('created_at')
      .limit(limit)
      .execute();
    return rows.map((r) => r.id);
  }

  async renew(worker: string, ids: readonly string[], leaseUntil: number): Promise<string[]> {
    if (ids.length === 0) return [];
    const held = await this.db
      .updateTable('executions')
      .set({ lease_until: leaseUntil })
      .where('id', 'in', ids)
      .where('lease_owner', '=', worker)
      .where('status', '=', 'running')
      .returning('id')
      .execute();
    const kept = new Set(held.map((r) => r.id));
    return ids.filter((id) => !kept.has(id));
  }

  journal(id: string, steps: readonly JournalRow[], events: readonly EventRow[]): Promise<void> {
    if (steps.length === 0 && events.length === 0) return Promise.resolve();
    return this.writer.journal(id, steps, events);
  }

  async steps(id: string): Promise<JournalRow[]> {
    const rows = await this.db
      .selectFrom('execution_steps')
      .select(['path', 'data'])
      .where('execution_id', '=', id)
      .execute();
    return rows.map((r) => ({ path: r.path, json: r.data }));
  }

  async events(id: string, afterSeq: number, limit: number): Promise<EventRow[]> {
    const rows = await this.db
      .selectFrom('execution_events')
      .select(['seq', 'type', 'data'])
      .where('execution_id', '=', id)
      .where('seq', '>', afterSeq)
      .orderBy('seq')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ seq: Number(r.seq), type: r.type, json: r.data }));
  }

  async lastEventSeq(id: string): Promise<number> {
    const row = await this.db
      .selectFrom('execution_events')
      .select((eb) => eb.fn.max('seq').as('seq'))
      .where('execution_id', '=', id)
      .executeTakeFirst();
    return Number(row?.seq ?? 0);
  }

  finish(id: string, outcome: ExecutionOutcome, writes: EndWrites): Promise<boolean> {
    return this.writer.finish(id, outcome, writes);
  }

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
      .where('status', 'not in', UNFINISHED)
      .where('callback', 'like', '{"status":"pending"%')
      .limit(limit)
      .execute();
    return rows.map((r) => r.id);
  }

  async addUsage(keyId: string, owner: string, date: string, delta: UsageDelta): Promise<void> {
    await this.db
      .insertInto('usage_days')
      .values({ key_id: keyId, owner, date, ...delta })
      .onConflict((oc) =>
        oc.columns(['key_id', 'date']).doUpdateSet({
          executions: sql`usage_days.executions + ${delta.executions}`,
          action_calls: sql`usage_days.action_calls + ${delta.action_calls}`,
          duration_ms: sql`usage_days.duration_ms + ${delta.duration_ms}`,
        }),
      )
      .execute();
  }

  async usage(owner: string, sinceDate: string): Promise<UsageRow[]> {
    const rows = await this.db
      .selectFrom('usage_days')
      .select(['key_id', 'date', 'executions', 'action_calls', 'duration_ms'])
      .where('owner', '=', owner)
      .where('date', '>=', sinceDate)
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

  /** Closes the journal's own connections; the shared ones are closed with the registry store. */
  async close(): Promise<void> {
    if (this.postgres && this.postgres.journal !== this.postgres.records)
      await this.postgres.journal.end();
  }
}

/**
 * The connections that write the journal on PostgreSQL. With `commit: 'async'` (the default)
 * they commit with `synchronous_commit = off`: a crash of the database server or machine (not of
 * weft) may lose the last fraction of a second of journal, whose steps then run again, as the
 * step in flight does (actions are at-least-once). Execution records are always committed
 * synchronously, and ending one flushes the journal before it.
 */
export function openPostgresJournal(
  url: string,
  schema: string,
  commit: 'async' | 'sync' = 'async',
): pg.Pool {
  return openPgPool({
    url,
    max: 4,
    options: `-c search_path=${schema} -c synchronous_commit=${commit === 'async' ? 'off' : 'on'}`,
  });
}
