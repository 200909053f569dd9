import { sql, type Kysely } from 'kysely';
import type { EventRow, WaitingFor } from '@weft/core';
import type { Database } from './database.js';
import { deadlineOf } from './executions-rows.js';
import type { JournalTables } from './journal-tables.js';

/** `status = 'waiting'` as a literal: the partial index `executions_waiting` is used only so. */
const WAITING = sql.lit('waiting');

/**
 * The waits of the executions store (migration `0008_waiting`): resuming and suspending, and
 * the deadlines. Decisions are rare, so they are plain transactions; the deadline queries read
 * the partial index of waiting rows only (cost independent of the other executions).
 */
export class ExecutionWaits {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly tables: JournalTables,
  ) {}

  /** See `ExecutionsStore.resume`. */
  async resume(id: string, events: readonly EventRow[], waitingFor?: WaitingFor): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('executions')
        .set({
          status: 'pending',
          lease_owner: null,
          lease_until: 0,
          ...(waitingFor ? { waiting_for: JSON.stringify(waitingFor) } : {}),
        })
        .where('id', '=', id)
        .where('status', '=', WAITING)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) return false;
      await this.tables.append(trx, id, [], events);
      return true;
    });
  }

  /** See `ExecutionsStore.suspend`. */
  async suspend(
    id: string,
    worker: string,
    waitingFor: WaitingFor,
    events: readonly EventRow[],
  ): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('executions')
        .set({
          status: 'waiting',
          waiting_for: JSON.stringify(waitingFor),
          wait_until: deadlineOf(waitingFor),
          lease_owner: null,
          lease_until: 0,
        })
        .where('id', '=', id)
        .where('status', '=', 'running')
        .where('lease_owner', '=', worker)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) return false;
      await this.tables.append(trx, id, [], events);
      return true;
    });
  }

  /** See `ExecutionsStore.nextWaitDeadline`. */
  async nextDeadline(): Promise<number | undefined> {
    const row = await nextDeadlineQuery(this.db).executeTakeFirst();
    return row?.wait_until === null || row === undefined ? undefined : Number(row.wait_until);
  }

  /** See `ExecutionsStore.expiredWaits`. */
  async expired(now: number, limit: number): Promise<string[]> {
    const rows = await expiredQuery(this.db, now, limit).execute();
    return rows.map((row) => row.id);
  }
}

/** The earliest deadline of the waiting executions (read from the partial index). */
export function nextDeadlineQuery(db: Kysely<Database>) {
  return db
    .selectFrom('executions')
    .select('wait_until')
    .where('status', '=', WAITING)
    .where('wait_until', 'is not', null)
    .orderBy('wait_until')
    .limit(1);
}

/** The waiting executions whose deadline is not after `now`, earliest first. */
export function expiredQuery(db: Kysely<Database>, now: number, limit: number) {
  return db
    .selectFrom('executions')
    .select('id')
    .where('status', '=', WAITING)
    .where('wait_until', '<=', now)
    .orderBy('wait_until')
    .limit(limit);
}
