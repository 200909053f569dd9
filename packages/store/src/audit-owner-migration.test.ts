import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { Database } from './database.js';
import { migrate } from './migrations.js';
import { openStore, type OpenedStore } from './open.js';

let opened: OpenedStore | undefined;
let dataDir: string | undefined;
afterEach(async () => {
  await opened?.executions.close();
  await opened?.registry.close();
  opened = undefined;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const HASH = 'a'.repeat(64);

describe('the owner of audit entries (0016_audit_owner)', () => {
  it("files entries made before under their execution's owner, the others under none", async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'weft-audit-owner-'));
    const db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: new BetterSqlite3(join(dataDir, 'weft.db')) }),
    });
    await migrate(db, 'sqlite', undefined, '0015_plugin_kind');
    await sql`INSERT INTO executions (id, owner, key_id, workflow, workflow_version, mode, status,
        definition, inputs, trigger, created_at, lease_until)
      VALUES ('e1', 'acme', 'k', 'w', '1.0.0', 'cloud', 'completed', '{}', '{}', '{}',
        '2026-01-01T00:00:00Z', 0)`.execute(db);
    for (const [seq, execution] of [
      [1, 'e1'],
      [2, null],
      [3, 'gone'],
    ] as const) {
      await sql`INSERT INTO audit_entries (seq, id, at, subject, credential, action, workflow,
          execution_id, step, decision, reason, required, missing, prev_hash, hash)
        VALUES (${seq}, ${`a${seq}`}, '2026-01-01T00:00:00Z', 'ada', 'oidc', 'execution.start',
          'w', ${execution}, null, 'allow', 'ok', '{"roles":[],"permissions":[]}',
          '{"roles":[],"permissions":[]}', ${HASH}, ${HASH})`.execute(db);
    }
    await db.destroy();
    opened = await openStore({ kind: 'sqlite', dataDir });
    const entries = await opened.audit.read({ afterSeq: 0, limit: 10 });
    expect(entries.map((e) => [e.seq, e.owner])).toEqual([
      [1, 'acme'],
      [2, null],
      [3, null],
    ]);
  });
});
