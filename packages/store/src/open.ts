import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { PgChangeFeed } from './pg-change-feed.js';
import { openPgPool } from './pg-pool.js';
import { guardedDialect } from './guarded-dialect.js';
import type {
  AuditStore,
  BudgetLedgerStore,
  DeploymentStore,
  ExecutionsStore,
  TriggerStore,
  RegistryStore,
  RoutesStore,
} from '@weft/core';
import type { Database, Dialect } from './database.js';
import { cachingStatements } from './sqlite-statements.js';
import { SqliteGroupCommit } from './sqlite-group-commit.js';
import { SqliteCheckpointer } from './sqlite-checkpointer.js';
import { SqliteReaders } from './sqlite-readers.js';
import { migrate } from './migrations.js';
import { KyselyDeploymentStore } from './deployments-store.js';
import { KyselyExecutionsStore } from './executions-store.js';
import { openPostgresJournal } from './postgres-journal-writer.js';
import { KyselyTriggerStore } from './triggers-store.js';
import { KyselyRegistryStore } from './registry-store.js';
import { KyselyRoutesStore } from './routes-store.js';
import { KyselyAuditStore } from './audit-store.js';
import { KyselyBudgetLedger } from './budgets-store.js';
import { moveOwner, type OwnerMove } from './move-owner.js';

/** Where to store: an SQLite file in a data directory, or a PostgreSQL database. */
export type StoreOptions =
  | {
      kind: 'sqlite';
      /** Directory holding `weft.db`; created when missing. Use `:memory:` for a throwaway store. */
      dataDir: string;
      /**
       * Where WAL checkpoints run: `background` (a thread of their own from the start, for a
       * server) or `when-busy` (default: by the writer until 200 hot-path commits, then in the
       * background; a CLI command never starts a thread).
       */
      checkpoints?: 'background' | 'when-busy';
      /**
       * Read-only connections, each in a thread of its own, that serve the registry's hot reads
       * (search, detail, API keys) off the event loop; default 0 (they run on the connection of
       * the store). Not for `:memory:`, which other connections cannot open.
       */
      readers?: number;
    }
  | {
      kind: 'postgres';
      /** `postgres://user@host:port/database`. */
      url: string;
      /** Schema to use (created when missing); default `public`. */
      schema?: string;
      /** Largest number of pooled connections; default 10. */
      poolSize?: number;
      /**
       * How the executions journal commits: `async` (default; `synchronous_commit = off`, see
       * `openPostgresJournal`) or `sync`.
       */
      journalCommit?: 'async' | 'sync';
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
  /** The router's routing table, on the same database (closed with `registry`). */
  routes: RoutesStore;
  /** `sqlite:/path/weft.db` or `postgres://host:port/db` (without password). */
  /** Webhook replay/rate-limit state and schedule fires (closed with `registry`). */
  triggers: TriggerStore;
  /** Deployed workflows and their revisions (closed with `registry`). */
  deployments: DeploymentStore;
  /** Executions, their journal and events (close it too: on PostgreSQL it has own connections). */
  executions: ExecutionsStore;
  /** The hash-chained audit log (closed with `registry`). */
  audit: AuditStore;
  /** The ledger of budgets across runs (closed with `registry`). */
  budgets: BudgetLedgerStore;
  /** Moves everything of one owner to another in one transaction (see {@link moveOwner}). */
  moveOwner(from: string, to: string): Promise<OwnerMove>;
  description: string;
  dialect: Dialect;
}

/**
 * Hot-path commits after which an SQLite store checkpoints in a background thread (a store that
 * only serves a CLI command or a short test never starts one).
 */
const BUSY_AFTER_COMMITS = 200;

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
    const db = new Kysely<Database>({
      // The PostgreSQL pool reports an unreachable server itself (`openPgPool`); SQLite through here.
      dialect: guardedDialect(new SqliteDialect({ database: cachingStatements(database) })),
    });
    await migrate(db, 'sqlite');
    const checkpoints =
      compiled.file === ':memory:' ? undefined : new SqliteCheckpointer(database, compiled.file);
    const group = new SqliteGroupCommit(
      database,
      checkpoints && { after: BUSY_AFTER_COMMITS, then: () => checkpoints.start() },
    );
    if (options.kind === 'sqlite' && options.checkpoints === 'background') checkpoints?.start();
    const readerCount = options.kind === 'sqlite' ? (options.readers ?? 0) : 0;
    const readers =
      compiled.file !== ':memory:' && readerCount > 0
        ? new SqliteReaders(compiled.file, readerCount)
        : undefined;
    return {
      registry: new KyselyRegistryStore(db, 'sqlite', {
        sqlite: database,
        ...(readers ? { readers } : {}),
        beforeClose: async () => {
          await readers?.close();
          await checkpoints?.stop();
        },
      }),
      triggers: new KyselyTriggerStore(db, 'sqlite', group),
      deployments: new KyselyDeploymentStore(db, 'sqlite'),
      routes: new KyselyRoutesStore(db, 'sqlite'),
      executions: new KyselyExecutionsStore(db, 'sqlite', { database, group }),
      audit: new KyselyAuditStore(db, 'sqlite', { database, group }),
      budgets: new KyselyBudgetLedger(db, 'sqlite'),
      moveOwner: (from, to) => moveOwner(db, from, to),
      description: `sqlite:${compiled.file}`,
      dialect: 'sqlite',
    };
  }
  const pool = openPgPool({
    url: compiled.url,
    max: compiled.poolSize,
    options: `-c search_path=${compiled.schema}`,
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  try {
    await sql`CREATE SCHEMA IF NOT EXISTS ${sql.id(compiled.schema)}`.execute(db);
    await migrate(db, 'postgres', compiled.schema);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return {
    registry: new KyselyRegistryStore(db, 'postgres', {
      pool,
      changes: new PgChangeFeed(compiled.url, compiled.schema),
    }),
    triggers: new KyselyTriggerStore(db, 'postgres'),
    deployments: new KyselyDeploymentStore(db, 'postgres'),
    routes: new KyselyRoutesStore(db, 'postgres'),
    executions: new KyselyExecutionsStore(db, 'postgres', undefined, {
      records: pool,
      journal: openPostgresJournal(
        compiled.url,
        compiled.schema,
        options.kind === 'postgres' ? options.journalCommit : undefined,
      ),
    }),
    audit: new KyselyAuditStore(db, 'postgres'),
    budgets: new KyselyBudgetLedger(db, 'postgres'),
    moveOwner: (from, to) => moveOwner(db, from, to),
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
