import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import type { AuditStore } from '@weft/core';
import { openStore, type OpenedStore } from './open.js';
import { takeTestSchema } from './test-stores.js';

/** A throwaway audit store for tests, with a way around it to its rows. */
export interface TestAuditStore {
  audit: AuditStore;
  /**
   * Runs SQL on the store's database over a connection of its own, as someone tampering with
   * the rows would (`UPDATE audit_entries SET reason = 'x' WHERE seq = 2`).
   */
  tamper(statement: string): Promise<void>;
  /**
   * Another store on the same data over its own connections (PostgreSQL: its own pool), as
   * another replica would open it; closed by `dispose()`.
   */
  replica(): Promise<AuditStore>;
  /** Closes the stores and drops their data. */
  dispose(): Promise<void>;
}

/**
 * Opens a fresh audit store: SQLite in a new temporary directory (a file, so that `tamper` can
 * reach it from another connection), or an empty schema in the PostgreSQL database at
 * `databaseUrl` ({@link takeTestSchema}).
 */
export async function openTestAuditStore(
  kind: 'sqlite' | 'postgres',
  databaseUrl?: string,
): Promise<TestAuditStore> {
  const opened: OpenedStore[] = [];
  const closeAll = async () => {
    for (const store of opened.splice(0)) {
      await store.executions.close();
      await store.registry.close();
    }
  };
  if (kind === 'sqlite') {
    const dataDir = mkdtempSync(join(tmpdir(), 'weft-audit-'));
    const open = async () => {
      const store = await openStore({ kind: 'sqlite', dataDir });
      opened.push(store);
      return store.audit;
    };
    return {
      audit: await open(),
      replica: open,
      tamper: async (statement) => {
        const database = new BetterSqlite3(join(dataDir, 'weft.db'));
        try {
          database.pragma('busy_timeout = 5000');
          database.exec(statement);
        } finally {
          database.close();
        }
      },
      dispose: async () => {
        await closeAll();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  if (!databaseUrl) throw new Error('a PostgreSQL test store needs a database URL');
  const schema = await takeTestSchema(databaseUrl);
  const open = async () => {
    const store = await openStore({
      kind: 'postgres',
      url: databaseUrl,
      schema: schema.name,
      poolSize: 4,
    });
    opened.push(store);
    return store.audit;
  };
  const connect = async () => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    return client;
  };
  return {
    audit: await open(),
    replica: open,
    tamper: async (statement) => {
      const client = await connect();
      try {
        await client.query(`SET search_path = ${schema.name}`);
        await client.query(statement);
      } finally {
        await client.end();
      }
    },
    dispose: async () => {
      await closeAll();
      await schema.release();
    },
  };
}
