import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, type Compilable } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXECUTION_STATUSES, type ExecutionQuery } from '@weft/core';
import type { Database } from './database.js';
import { migrate } from './migrations.js';
import { PLAN_MODES, PlanTestDatabase, planNodes, seqScans } from './plan-test-support.js';
import {
  claimableCountQuery,
  claimableQuery,
  listQuery,
  releaseLeasesQuery,
} from './executions-queries.js';
import { endedQuery } from './executions-retention.js';
import { expiredQuery, nextDeadlineQuery } from './executions-waits.js';
import { journalReads } from './journal-tables.js';

const EXECUTIONS = 10_000;
/** Journal rows (packed writes) seeded per execution. */
const WRITES = 10;
const url = process.env['WEFT_TEST_DATABASE_URL'];

/**
 * The seeded executions, one a second from 2026-01-01: owners `acme` (four in five) and
 * `globex`, workflows `w0`…`w9`, triggers `api`, `schedule`, `webhook`; one in a hundred
 * failed, one canceled, one in a thousand pending, running or waiting, the others completed.
 */
const SEED_COLUMNS = `id, owner, key_id, workflow, workflow_version, mode, status, definition,
  inputs, "trigger", trigger_type, callback_url, created_at, started_at, finished_at,
  lease_owner, lease_until, wait_until`;
const STATUS = `CASE WHEN i % 1000 = 2 THEN 'pending' WHEN i % 1000 = 3 THEN 'running'
  WHEN i % 1000 = 4 THEN 'waiting' WHEN i % 100 = 0 THEN 'failed' WHEN i % 100 = 1 THEN 'canceled'
  ELSE 'completed' END`;

/** Every list a client can ask for, of one owner and of every owner (admin keys). */
function lists(): Record<string, ExecutionQuery> {
  const shapes: Record<string, Omit<ExecutionQuery, 'owner' | 'limit'>> = {
    all: {},
    ...Object.fromEntries(EXECUTION_STATUSES.map((status) => [status, { status }])),
    workflow: { workflow: 'w1' },
    trigger: { trigger: 'webhook' },
    'time range': { from: '2026-01-01T01:00:00.000Z', to: '2026-01-01T02:00:00.000Z' },
    'next page': { after: { created_at: '2026-01-01T02:00:00.000Z', id: 'e' } },
    'failed of a workflow': { status: 'failed', workflow: 'w1' },
    'completed by a trigger': { status: 'completed', trigger: 'api' },
    'failed, next page': {
      status: 'failed',
      after: { created_at: '2026-01-01T02:00:00.000Z', id: 'e' },
    },
  };
  return Object.fromEntries(
    Object.entries(shapes).flatMap(([name, shape]) => [
      [`list: ${name}`, { ...shape, owner: 'acme', limit: 50 }],
      [`list of every owner: ${name}`, { ...shape, owner: undefined, limit: 50 }],
    ]),
  );
}

/** Every read of executions by something else than its id, compiled for `db`. */
function statements(db: Kysely<Database>): Record<string, Compilable> {
  const now = Date.parse('2026-01-02T00:00:00Z');
  return {
    ...Object.fromEntries(
      Object.entries(lists()).map(([name, query]) => [name, listQuery(db, query)]),
    ),
    claimable: claimableQuery(db, now, 100),
    'claimable count': claimableCountQuery(db, now),
    'release replica leases': releaseLeasesQuery(db, 'replica-a', 'replica-a#0123456789ab'),
    retention: endedQuery(db, { before: '2026-01-01T01:00:00Z', limit: 100 }),
    'retention, except a workflow': endedQuery(db, {
      before: '2026-01-01T01:00:00Z',
      except: [{ owner: 'acme', workflow: 'w1' }],
      limit: 100,
    }),
    'wait deadline': nextDeadlineQuery(db),
    'expired waits': expiredQuery(db, now, 100),
    'journal: steps': journalReads.steps(db, 'e00042'),
    'journal: events': journalReads.events(db, 'e00042', 4, 100),
    'journal: last event seq': journalReads.lastEventSeq(db, 'e00042'),
  };
}

/** What must read the claimable rows only, whatever else it does. */
const CLAIMS = ['claimable', 'claimable count', 'release replica leases'];

describe(`executions plans at ${EXECUTIONS.toLocaleString('en')} rows: no read scans a table`, () => {
  describe('SQLite (EXPLAIN QUERY PLAN)', () => {
    const database = new BetterSqlite3(':memory:');
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });

    beforeAll(async () => {
      await migrate(db, 'sqlite');
      database.exec(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n
          WHERE i + 1 < ${EXECUTIONS}),
        s AS (SELECT i, ${STATUS} AS status,
          strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', '+' || i || ' seconds') AS at FROM n)
        INSERT INTO executions (${SEED_COLUMNS})
        SELECT printf('e%05d', i), CASE WHEN i % 5 = 4 THEN 'globex' ELSE 'acme' END, null,
          'w' || (i % 10), '1.0.0', 'cloud', status, '{}', '{}', '{}',
          CASE i % 3 WHEN 0 THEN 'api' WHEN 1 THEN 'schedule' ELSE 'webhook' END, null, at, at,
          CASE WHEN status IN ('completed', 'failed', 'canceled') THEN at END,
          CASE WHEN status = 'running' THEN 'replica-a#0123456789ab' END,
          CASE WHEN status = 'running' THEN 1 ELSE 0 END,
          CASE WHEN status = 'waiting' THEN i END
        FROM s`);
      database.exec(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n
          WHERE i + 1 < ${EXECUTIONS * WRITES})
        INSERT INTO execution_journal (execution_id, last_seq, steps, events)
        SELECT printf('e%05d', i / ${WRITES}), i % ${WRITES}, '["s"]' || char(10) || '{}', NULL
        FROM n`);
    });
    afterAll(() => db.destroy());

    const plan = (statement: Compilable): string[] => {
      const { sql: text, parameters } = statement.compile();
      return (
        database.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...parameters) as { detail: string }[]
      ).map((row) => row.detail);
    };

    for (const [name, statement] of Object.entries(statements(db))) {
      it(name, () => {
        const steps = plan(statement);
        const text = steps.join('\n');
        if (process.env['WEFT_PRINT_PLANS']) console.log(`${name}\n  ${steps.join('\n  ')}`);
        expect(
          steps.filter((detail) => /^SCAN execution(s|_journal)$/.test(detail)),
          text,
        ).toEqual([]);
        if (name.startsWith('journal'))
          expect(text).toMatch(/INDEX execution_journal_seq \(execution_id=\?/);
        // A page comes in the order of an index, sorting nothing, but for the lists of every
        // owner's pending, running or waiting executions: those sort the rows of a partial
        // index of unfinished executions only (before 0031, every status sorted all its rows).
        if (name.startsWith('list') && !/INDEX executions_(claimable|waiting)\b/.test(text))
          expect(text).not.toContain('TEMP B-TREE');
        if (CLAIMS.includes(name)) expect(text).toMatch(/INDEX executions_claimable\b/);
      });
    }
  });

  describe.skipIf(!url)('PostgreSQL (EXPLAIN, after ANALYZE)', () => {
    const database = new PlanTestDatabase(url!);
    const { pool, db } = database;

    beforeAll(async () => {
      await database.create();
      await pool.query(`INSERT INTO executions (${SEED_COLUMNS})
        SELECT 'e' || lpad(i::text, 5, '0'), CASE WHEN i % 5 = 4 THEN 'globex' ELSE 'acme' END,
          null, 'w' || (i % 10), '1.0.0', 'cloud', status, '{}', '{}', '{}',
          CASE i % 3 WHEN 0 THEN 'api' WHEN 1 THEN 'schedule' ELSE 'webhook' END, null, at, at,
          CASE WHEN status IN ('completed', 'failed', 'canceled') THEN at END,
          CASE WHEN status = 'running' THEN 'replica-a#0123456789ab' END,
          CASE WHEN status = 'running' THEN 1 ELSE 0 END,
          CASE WHEN status = 'waiting' THEN i END
        FROM (SELECT i, ${STATUS} AS status, to_char(timestamp '2026-01-01' + i * interval '1 second',
          'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at FROM generate_series(0, ${EXECUTIONS - 1}) i) s`);
      await pool.query(`INSERT INTO execution_journal (execution_id, last_seq, steps, events)
        SELECT 'e' || lpad((i / ${WRITES})::text, 5, '0'), i % ${WRITES}, '["s"]' || chr(10) || '{}',
          NULL
        FROM generate_series(0, ${EXECUTIONS * WRITES - 1}) i`);
      await pool.query('VACUUM ANALYZE executions');
      await pool.query('VACUUM ANALYZE execution_journal');
    }, 60_000);
    afterAll(() => database.drop());

    /**
     * Every statement planned with its values and, as a named statement may be after five
     * calls, generically.
     */
    for (const [name, statement] of Object.entries(statements(db))) {
      it(name, async () => {
        const { sql: text, parameters } = statement.compile();
        for (const [m, plan] of (await database.plans(text, parameters)).entries()) {
          const detail = `${PLAN_MODES[m]}\n${JSON.stringify(plan, null, 1)}`;
          expect(seqScans(plan), detail).toEqual([]);
          if (CLAIMS.includes(name)) {
            expect(
              planNodes(plan).some((n) => n['Index Name'] === 'executions_claimable'),
              detail,
            ).toBe(true);
          }
        }
      });
    }
  });
});
