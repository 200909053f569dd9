import { sql, type Kysely } from 'kysely';
import type { ExecutionStats, ExecutionStatsQuery, ExecutionStatus } from '@weft/core';
import type { Database, Dialect } from './database.js';

/**
 * {@link ExecutionsStore.stats} in SQL, the same statements on SQLite and PostgreSQL but for the
 * duration of a row: executions per UTC hour (the first 13 characters of the ISO `created_at`)
 * and status, and per workflow the nearest-rank p50 and p95 of the durations of its ended
 * executions, ranked with window functions (the smallest duration whose rank r has
 * `100 r >= p n`). Both read the `(owner, created_at, id)` index (`created_at, id` for every
 * owner's).
 */
export async function executionStats(
  db: Kysely<Database>,
  dialect: Dialect,
  query: ExecutionStatsQuery,
): Promise<ExecutionStats> {
  const owner = query.owner === undefined ? sql`` : sql`AND owner = ${query.owner}`;
  const range = sql`created_at >= ${query.since} AND created_at < ${query.until} ${owner}`;
  const hours = await sql<{ hour: string; status: string; count: number | string }>`
    SELECT substr(created_at, 1, 13) AS hour, status, count(*) AS count
    FROM executions WHERE ${range}
    GROUP BY substr(created_at, 1, 13), status
    ORDER BY hour, status`.execute(db);
  const ms =
    dialect === 'postgres'
      ? sql`extract(epoch from (finished_at::timestamptz - started_at::timestamptz)) * 1000`
      : sql`(julianday(finished_at) - julianday(started_at)) * 86400000.0`;
  const durations = await sql<{
    workflow: string;
    n: number | string;
    p50: number | string;
    p95: number | string;
  }>`
    WITH d AS (
      SELECT workflow, ${ms} AS ms FROM executions
      WHERE ${range} AND started_at IS NOT NULL AND finished_at IS NOT NULL
    ), r AS (
      SELECT workflow, ms,
        row_number() OVER (PARTITION BY workflow ORDER BY ms) AS rn,
        count(*) OVER (PARTITION BY workflow) AS n
      FROM d
    )
    SELECT workflow, n,
      min(CASE WHEN rn * 100 >= 50 * n THEN ms END) AS p50,
      min(CASE WHEN rn * 100 >= 95 * n THEN ms END) AS p95
    FROM r GROUP BY workflow, n ORDER BY workflow`.execute(db);
  return {
    hours: hours.rows.map((row) => ({
      hour: row.hour,
      status: row.status as ExecutionStatus,
      count: Number(row.count),
    })),
    workflows: durations.rows.map((row) => ({
      workflow: row.workflow,
      count: Number(row.n),
      p50_ms: Math.round(Number(row.p50)),
      p95_ms: Math.round(Number(row.p95)),
    })),
  };
}
