import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { PluginDefinition, PluginKind, RegistryStore } from '@weft/core';
import { openStore, type OpenedStore } from './open.js';

/** A throwaway store for tests, and how to get rid of it. */
export interface TestStore {
  store: RegistryStore;
  /** PostgreSQL: the schema holding its data. */
  schema?: string;
  /** Closes the store and drops its data (the PostgreSQL schema). */
  dispose(): Promise<void>;
}

/**
 * Opens a fresh store for one test run: in-memory SQLite, or an empty schema in the PostgreSQL
 * database at `databaseUrl` ({@link takeTestSchema}), given back by `dispose()`.
 */
export async function openTestStore(
  kind: 'sqlite' | 'postgres',
  databaseUrl?: string,
): Promise<TestStore> {
  if (kind === 'sqlite') {
    const { registry } = await openStore({ kind: 'sqlite', dataDir: ':memory:' });
    return { store: registry, dispose: () => registry.close() };
  }
  if (!databaseUrl) throw new Error('a PostgreSQL test store needs a database URL');
  const { opened, schema, dispose } = await openPostgresTestStore(databaseUrl);
  return { store: opened.registry, schema, dispose };
}

/**
 * Opens the whole store on a schema from {@link takeTestSchema}; `dispose()` closes it and gives
 * the schema back.
 */
export async function openPostgresTestStore(
  databaseUrl: string,
  poolSize = 4,
): Promise<{ opened: OpenedStore; schema: string; dispose(): Promise<void> }> {
  const schema = await takeTestSchema(databaseUrl);
  const opened = await openStore({
    kind: 'postgres',
    url: databaseUrl,
    schema: schema.name,
    poolSize,
  });
  return {
    opened,
    schema: schema.name,
    dispose: async () => {
      await opened.executions.close();
      await opened.registry.close();
      await schema.release();
    },
  };
}

/** A new schema name for one test's data, `weft_test_<random>` (drop it with {@link dropTestSchema}). */
export function testSchemaName(): string {
  return `weft_test_${randomBytes(6).toString('hex')}`;
}

/** Drops a PostgreSQL schema (and everything in it) over a connection of its own. */
export async function dropTestSchema(databaseUrl: string, schema: string): Promise<void> {
  await withClient(databaseUrl, (client) =>
    client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`),
  );
}

/** A PostgreSQL schema that one test's stores use, from {@link takeTestSchema}. */
export interface TestSchema {
  readonly name: string;
  /** Gives the schema up; call it once, after closing every store on it. */
  release(): Promise<void>;
}

/**
 * Schema reuse, shared through `globalThis` under {@link TEST_SCHEMA_REUSE}: Vitest's setup file
 * (test/vitest-setup.ts) creates the object, which turns reuse on, and calls `dropReleased` when
 * each test file ends. (The setup file does not import this package: Vitest would evaluate it
 * again for every test file.)
 */
interface TestSchemaReuse {
  /** Released schemas, migrated and emptied, by database URL. */
  released?: Map<string, string[]>;
  dropReleased?: () => Promise<void>;
}

/** The `globalThis` key of {@link TestSchemaReuse}. */
const TEST_SCHEMA_REUSE = Symbol.for('weft.test-schema-reuse');

/** The released schemas, when reuse is on. */
function releasedSchemas(): Map<string, string[]> | undefined {
  const reuse = (globalThis as { [TEST_SCHEMA_REUSE]?: TestSchemaReuse })[TEST_SCHEMA_REUSE];
  if (!reuse) return undefined;
  const released = (reuse.released ??= new Map());
  reuse.dropReleased ??= async () => {
    for (const [databaseUrl, names] of released) {
      for (const name of names.splice(0)) await dropTestSchema(databaseUrl, name);
    }
  };
  return released;
}

/**
 * A schema for one test's stores. Creating the tables of a new schema takes PostgreSQL ~0.4 s, a
 * third of a test's time there. So, when reuse is on ({@link TEST_SCHEMA_REUSE}: Vitest runs), a
 * released schema is emptied (its rows deleted, its tables kept) and the next test of the file
 * gets it. Otherwise (benchmarks, scripts) the schema is new and `release()` drops it.
 */
export async function takeTestSchema(databaseUrl: string): Promise<TestSchema> {
  const released = releasedSchemas();
  if (!released) {
    const name = testSchemaName();
    return { name, release: () => dropTestSchema(databaseUrl, name) };
  }
  const idle = released.get(databaseUrl) ?? [];
  released.set(databaseUrl, idle);
  const name = idle.pop() ?? testSchemaName();
  let given = false;
  return {
    name,
    release: async () => {
      if (given) return;
      given = true;
      try {
        await emptyTestSchema(databaseUrl, name);
      } catch (error) {
        // Not reusable: drop it rather than leave it behind.
        await dropTestSchema(databaseUrl, name).catch(() => undefined);
        throw error;
      }
      idle.push(name);
    },
  };
}

/**
 * Deletes every row of a schema's tables but Kysely's migration tables, children before the
 * tables their foreign keys name, in one transaction. (`TRUNCATE` gives every table new files:
 * 0.2-0.4 s against 2 ms.)
 */
async function emptyTestSchema(databaseUrl: string, schema: string): Promise<void> {
  await withClient(databaseUrl, async (client) => {
    const tables = await client.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND c.relname NOT LIKE 'kysely\\_%'`,
      [schema],
    );
    const references = await client.query<{ child: string; parent: string }>(
      `SELECT c.relname AS child, p.relname AS parent FROM pg_constraint k
         JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid
         JOIN pg_namespace n ON n.oid = k.connamespace
        WHERE k.contype = 'f' AND n.nspname = $1 AND c.oid <> p.oid`,
      [schema],
    );
    const order = childrenFirst(
      tables.rows.map((t) => t.name),
      references.rows,
    );
    const deletes = order.map((table) => `DELETE FROM ${schema}."${table}";`).join(' ');
    await client.query(`BEGIN; ${deletes} COMMIT;`);
  });
}

/** The tables ordered so that a table comes before every table it references. */
function childrenFirst(
  tables: string[],
  references: { child: string; parent: string }[],
): string[] {
  const order: string[] = [];
  const done = new Set<string>();
  const visit = (table: string, path: Set<string>) => {
    if (done.has(table) || path.has(table)) return;
    path.add(table);
    // Every table that references this one goes first.
    for (const r of references) if (r.parent === table) visit(r.child, path);
    path.delete(table);
    done.add(table);
    order.push(table);
  };
  for (const table of tables) visit(table, new Set());
  return order;
}

async function withClient<T>(
  databaseUrl: string,
  use: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** Publishes `slug` at 1.0.0 through `store`, as the registry does (for store tests). */
export async function createTestPlugin(
  store: RegistryStore,
  slug: string,
  kind: PluginKind = 'plugin',
): Promise<void> {
  const definition = {
    slug,
    version: '1.0.0',
    name: slug,
    description: 'Sends messages',
    author: 'acme',
    tags: [],
    actions: [{ name: 'run', description: 'Runs' }],
  } as unknown as PluginDefinition;
  const at = '2026-01-02T00:00:00Z';
  const slugKey = slug.replace(/-/g, '');
  await store.modifyPlugin(slug, slugKey, () => ({
    change: {
      kind: 'create',
      owner: 'acme',
      slug_key: slugKey,
      at,
      version: {
        kind,
        version: '1.0.0',
        published_at: at,
        checksum: 'sha256:x',
        content_type: 'application/json',
        body: new TextEncoder().encode(JSON.stringify(definition)),
        definition,
        signature_key_id: null,
      },
    },
    result: undefined,
  }));
}
