import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import type { RegistryStore } from '@weft/core';
import type { Database, Dialect } from './database.js';
import { migrate } from './migrations.js';
import { KyselyRegistryStore } from './registry-store.js';

/** Where to store: an SQLite file in a data directory, or a PostgreSQL database. */
export type StoreOptions =
  | {
      kind: 'sqlite';
      /** Directory holding `weft.db`; created when missing. Use `:memory:` for a throwaway store. */
      dataDir: string;
    }
  | {
      kind: 'postgres';
      /** `postgres://user@host:port/database`. */
      url: string;
      /** Schema to use (created when missing); default `public`. */
      schema?: string;
      /** Largest number of pooled connections; default 10. */
      poolSize?: number;
    };

/** {@link StoreOptions} with defaults filled in. */
export type CompiledStoreOptions =
  | { kind: 'sqlite'; file: string }
  | { kind: 'postgres'; url: string; schema: string; poolSize: number };

/** Fills the defaults of {@link StoreOptions}. */
export function compileStoreOptions(options: StoreOptions): CompiledStoreOptions {
  if (options.kind === 'sqlite') {
    return {
      kind: 'sqlite',
      file: options.dataDir === ':memory:' ? ':memory:' : join(options.dataDir, 'weft.db'),
    };
  }
  const schema = options.schema ?? 'public';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new Error(`invalid PostgreSQL schema name ${JSON.stringify(schema)}`);
  }
  return { kind: 'postgres', url: options.url, schema, poolSize: options.poolSize ?? 10 };
}

/** An open store: the registry port plus where it keeps its data, for logs. */
export interface OpenedStore {
  registry: RegistryStore;
  /** `sqlite:/path/weft.db` or `postgres://host:port/db` (without password). */
  description: string;
  dialect: Dialect;
}

/** Opens (and migrates) the store. */
export async function openStore(options: StoreOptions): Promise<OpenedStore> {
  const compiled = compileStoreOptions(options);
  if (compiled.kind === 'sqlite') {
    if (compiled.file !== ':memory:')
      mkdirSync(options.kind === 'sqlite' ? options.dataDir : '.', { recursive: true });
    const database = new BetterSqlite3(compiled.file);
    database.pragma('journal_mode = WAL');
    database.pragma('synchronous = NORMAL');
    database.pragma('busy_timeout = 5000');
    database.pragma('foreign_keys = ON');
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
    await migrate(db, 'sqlite');
    return {
      registry: new KyselyRegistryStore(db, 'sqlite'),
      description: `sqlite:${compiled.file}`,
      dialect: 'sqlite',
    };
  }
  const pool = new pg.Pool({
    connectionString: compiled.url,
    max: compiled.poolSize,
    options: `-c search_path=${compiled.schema}`,
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  try {
    await sql`CREATE SCHEMA IF NOT EXISTS ${sql.id(compiled.schema)}`.execute(db);
    await migrate(db, 'postgres');
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return {
    registry: new KyselyRegistryStore(db, 'postgres'),
    description: redactUrl(compiled.url),
    dialect: 'postgres',
  };
}

/** The URL without its password. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://(unparsable url)';
  }
}
