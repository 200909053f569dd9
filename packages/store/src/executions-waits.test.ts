import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Database } from './database.js';
import { executionsWaitsContract } from './executions-waits.contract.js';
import { expiredQuery, nextDeadlineQuery } from './executions-waits.js';
import { openTestExecutionsStore } from './executions-test-store.js';
import { openStore } from './open.js';

const url = process.env['WEFT_TEST_DATABASE_URL'];

describe('waiting executions in memory', () => {
  executionsWaitsContract(() => openTestExecutionsStore('memory'));
});

describe('waiting executions on SQLite', () => {
  executionsWaitsContract(() => openTestExecutionsStore('sqlite'));

  it('reads deadlines from the partial index of waiting rows, never by scanning executions', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-waits-'));
    const opened = await openStore({ kind: 'sqlite', dataDir: dir });
    const database = new BetterSqlite3(join(dir, 'weft.db'));
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
    try {
      for (const query of [nextDeadlineQuery(db), expiredQuery(db, 1000, 100)]) {
        const { sql, parameters } = query.compile();
        const plan = database.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters) as {
          detail: string;
        }[];
        expect(plan.map((row) => row.detail).join('\n')).toMatch(
          /USING (COVERING )?INDEX executions_waiting/,
        );
      }
    } finally {
      await db.destroy();
      await opened.executions.close();
      await opened.registry.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!url)(
  'waiting executions on PostgreSQL (set WEFT_TEST_DATABASE_URL to run)',
  () => {
    executionsWaitsContract(() => openTestExecutionsStore('postgres', url));
  },
);
