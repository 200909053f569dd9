import type { Kysely } from 'kysely';
import { FINISHED_STATUSES, type DeletedExecutions, type EndedQuery } from '@weft/core';
import type { Database } from './database.js';
import type { JournalTables } from './journal-tables.js';

/**
 * Retention of executions: deletes one batch of ended executions (the oldest first, found by
 * the `executions_finished` index) with everything stored under their ids, in one transaction.
 * A batch is small (the caller's `limit`), so the transaction holds the database briefly and
 * the hot path (claims, journal writes, group commits) waits at most that long.
 */
export async function deleteEndedExecutions(
  db: Kysely<Database>,
  tables: JournalTables,
  query: EndedQuery,
): Promise<DeletedExecutions> {
  if (query.limit <= 0) return { executions: 0, steps: 0, events: 0 };
  return db.transaction().execute(async (trx) => {
    const ids = (await endedQuery(trx, query).execute()).map((r) => r.id);
    if (ids.length === 0) return { executions: 0, steps: 0, events: 0 };
    const journal = await tables.remove(trx, ids);
    await trx.deleteFrom('callback_attempts').where('execution_id', 'in', ids).execute();
    await trx.deleteFrom('execution_idempotency').where('execution_id', 'in', ids).execute();
    const executions = await trx.deleteFrom('executions').where('id', 'in', ids).execute();
    return {
      executions: Number(executions[0]?.numDeletedRows ?? 0),
      steps: journal.steps,
      events: journal.events,
    };
  });
}

/** The oldest ended executions of {@link deleteEndedExecutions}, by `executions_finished`. */
export function endedQuery(db: Kysely<Database>, query: EndedQuery) {
  let select = db
    .selectFrom('executions')
    .select('id')
    .where('finished_at', 'is not', null)
    .where('finished_at', '<', query.before)
    .where('status', 'in', [...FINISHED_STATUSES]);
  const { only, except } = query;
  if (only) select = select.where('owner', '=', only.owner).where('workflow', '=', only.workflow);
  if (except && except.length > 0) {
    select = select.where((eb) =>
      eb.not(
        eb.or(
          except.map((e) => eb.and([eb('owner', '=', e.owner), eb('workflow', '=', e.workflow)])),
        ),
      ),
    );
  }
  return select.orderBy('finished_at').limit(query.limit);
}
