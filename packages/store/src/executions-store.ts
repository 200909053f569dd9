import type BetterSqlite3 from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import type pg from 'pg';
import {
  type CallbackAttempt,
  type CallbackState,
  type CreateOutcome,
  type DeletedExecutions,
  type EndedQuery,
  type EndWrites,
  type EventRow,
  type ExecutionLease,
  type ExecutionOutcome,
  type ExecutionQuery,
  type ExecutionStats,
  type ExecutionStatsQuery,
  type ExecutionsStore,
  type IdempotencyClaim,
  type JournalRow,
  type StoredExecution,
  type UsageDelta,
  type UsageRow,
  type WaitingFor,
} from '@weft/core';
import type { Database, Dialect } from './database.js';
import type { JournalWriter } from './executions-journal.js';
import { PostgresJournalWriter } from './postgres-journal-writer.js';
import { SqliteJournalWriter } from './sqlite-journal-writer.js';
import { EXECUTION_COLUMNS, toExecutionRow, toStoredExecution } from './executions-rows.js';
import { ExecutionAccounts } from './executions-accounts.js';
import {
  claimableCountQuery,
  claimableQuery,
  listQuery,
  releaseLeasesQuery,
} from './executions-queries.js';
import { ExecutionWaits } from './executions-waits.js';
import { journalTables, type JournalTables } from './journal-tables.js';
import { isUniqueViolation } from './rows.js';
import { deleteEndedExecutions } from './executions-retention.js';
import { executionStats } from './executions-stats.js';
import type { SqliteGroupCommit } from './sqlite-group-commit.js';

/**
 * The runtime's store port over Kysely, for SQLite and PostgreSQL alike; the hot path (journal,
 * finish) goes through {@link JournalWriter}. It shares the registry store's connection and is
 * closed with it.
 */
export class KyselyExecutionsStore implements ExecutionsStore {
  private readonly writer: JournalWriter;
  private readonly waits: ExecutionWaits;
  private readonly accounts: ExecutionAccounts;
  private readonly tables: JournalTables;

  /**
   * On SQLite, give the better-sqlite3 handle under `db` and its group commit (the hot writes
   * use them directly). On
   * PostgreSQL, give the pool under `db` (`records`) and the journal's own (`journal`, see
   * `openPostgresJournal`); the store closes the journal's.
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
    this.tables = journalTables(kind);
    this.waits = new ExecutionWaits(db, this.tables);
    this.accounts = new ExecutionAccounts(db, kind);
  }

  async flush(): Promise<void> {
    await this.writer.flush();
  }

  async create(
    execution: StoredExecution,
    idempotency?: IdempotencyClaim,
    lease?: ExecutionLease,
    events: readonly EventRow[] = [],
    steps: readonly JournalRow[] = [],
    durableAtEnd = false,
  ): Promise<CreateOutcome> {
    // The hot path: one prepared insert (group-committed on SQLite).
    if (
      !idempotency &&
      events.length === 0 &&
      steps.length === 0 &&
      execution.waiting_for === undefined
    ) {
      await this.writer.insert(
        toExecutionRow(execution, lease),
        durableAtEnd && lease !== undefined,
      );
      return { created: true, execution };
    }
    if (idempotency) {
      const existing = await this.byIdempotency(idempotency);
      if (existing) return existing;
    }
    try {
      await this.db.transaction().execute(async (trx) => {
        if (idempotency) {
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
        }
        await trx.insertInto('executions').values(toExecutionRow(execution, lease)).execute();
        await this.tables.append(trx, execution.id, steps, events);
      });
      return { created: true, execution };
    } catch (error) {
      if (!idempotency || !isUniqueViolation(error)) throw error;
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
    const rows = await listQuery(this.db, query).execute();
    return rows.map(toStoredExecution);
  }

  stats(query: ExecutionStatsQuery): Promise<ExecutionStats> {
    return executionStats(this.db, this.kind, query);
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
    const rows = await claimableQuery(this.db, now, limit).execute();
    return rows.map((r) => r.id);
  }

  async claimableCount(now: number): Promise<number> {
    const row = await claimableCountQuery(this.db, now).executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async releaseReplicaLeases(replica: string, current: string): Promise<number> {
    const released = await releaseLeasesQuery(this.db, replica, current).execute();
    return released.length;
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

  steps(id: string): Promise<JournalRow[]> {
    return this.tables.steps(this.db, id);
  }

  events(id: string, afterSeq: number, limit: number): Promise<EventRow[]> {
    return this.tables.events(this.db, id, afterSeq, limit);
  }

  lastEventSeq(id: string): Promise<number> {
    return this.tables.lastEventSeq(this.db, id);
  }

  finish(id: string, outcome: ExecutionOutcome, writes: EndWrites): Promise<boolean> {
    return this.writer.finish(id, outcome, writes);
  }

  resume(id: string, events: readonly EventRow[], waitingFor?: WaitingFor): Promise<boolean> {
    return this.waits.resume(id, events, waitingFor);
  }

  suspend(
    id: string,
    worker: string,
    waitingFor: WaitingFor,
    events: readonly EventRow[],
  ): Promise<boolean> {
    return this.waits.suspend(id, worker, waitingFor, events);
  }

  endWaiting(
    id: string,
    outcome: ExecutionOutcome,
    writes: EndWrites,
    expiredBy?: number,
  ): Promise<boolean> {
    return this.writer.endWaiting(id, outcome, writes, expiredBy);
  }

  nextWaitDeadline(): Promise<number | undefined> {
    return this.waits.nextDeadline();
  }

  expiredWaits(now: number, limit: number): Promise<string[]> {
    return this.waits.expired(now, limit);
  }

  recordCallback(id: string, attempt: CallbackAttempt, state: CallbackState): Promise<void> {
    return this.accounts.recordCallback(id, attempt, state);
  }

  callbackAttempts(id: string): Promise<CallbackAttempt[]> {
    return this.accounts.callbackAttempts(id);
  }

  pendingCallbacks(limit: number): Promise<string[]> {
    return this.accounts.pendingCallbacks(limit);
  }

  addUsage(keyId: string, owner: string, date: string, delta: UsageDelta): Promise<void> {
    return this.accounts.addUsage(keyId, owner, date, delta);
  }

  usage(owner: string, sinceDate: string): Promise<UsageRow[]> {
    return this.accounts.usage(owner, sinceDate);
  }

  signingSecret(keyId: string, generate: () => string): Promise<string> {
    return this.accounts.signingSecret(keyId, generate);
  }

  deleteEnded(query: EndedQuery): Promise<DeletedExecutions> {
    return deleteEndedExecutions(this.db, this.tables, query);
  }

  /** Closes the journal's own connections; the shared ones are closed with the registry store. */
  async close(): Promise<void> {
    if (this.postgres && this.postgres.journal !== this.postgres.records)
      await this.postgres.journal.end();
  }
}
