/**
 * A StartExecution for benchmarks that makes the pending record durable the way the runtime's
 * executions store does: one INSERT into an SQLite table (WAL, synchronous=NORMAL) of the same
 * database file, before answering.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { StartExecution } from '../../packages/runtime/src/triggers/index.js';

export function durableStart(dataDir: string): { start: StartExecution; close(): void } {
  const db = new BetterSqlite3(join(dataDir, 'weft.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.exec(`CREATE TABLE IF NOT EXISTS bench_executions (
    execution_id TEXT PRIMARY KEY, workflow TEXT NOT NULL, status TEXT NOT NULL,
    trigger TEXT NOT NULL, created_at TEXT NOT NULL)`);
  const insert = db.prepare(
    'INSERT INTO bench_executions (execution_id, workflow, status, trigger, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  return {
    start: async ({ workflow, trigger }) => {
      const id = randomUUID();
      const at = new Date().toISOString();
      insert.run(id, workflow.name, 'pending', JSON.stringify(trigger), at);
      return {
        execution_id: id,
        status: 'pending',
        poll_url: `/workflows/executions/${id}`,
        workflow: workflow.name,
        workflow_version: workflow.version,
        mode: 'cloud',
        trigger: trigger.type,
        created_at: at,
        started_at: null,
        finished_at: null,
      };
    },
    close: () => db.close(),
  };
}
