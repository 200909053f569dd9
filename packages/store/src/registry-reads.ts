import type BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import { CompiledQuery, type Kysely } from 'kysely';
import type { PluginState, StoredDefinition } from '@weft/core';
import type { Database, Dialect } from './database.js';
import { toPluginRecord, toVersionRecord, VERSION_COLUMNS } from './rows.js';
import type { SqliteReaders } from './sqlite-readers.js';

/** A row as the database returns it. */
export type Row = Record<string, unknown>;

/** Most SQLite statements kept prepared (the registry's hot reads need a handful). */
const MAX_STATEMENTS = 64;

/** The connections under Kysely that the hot reads use directly. */
export interface RunnerConnections {
  /** SQLite: the connection, to keep statements prepared. */
  sqlite?: BetterSqlite3.Database;
  /** SQLite: read-only connections in threads of their own, when the store has them. */
  readers?: SqliteReaders;
  /** PostgreSQL: the pool, to run named (prepared) statements. */
  pool?: pg.Pool;
}

/**
 * Runs the registry's hot reads as fixed SQL texts: on SQLite through statements prepared once
 * (Kysely prepares each query anew) on the connection under Kysely, on PostgreSQL as named
 * statements on the pool, in one round trip each. A named statement is planned once per
 * connection (PostgreSQL then keeps a generic plan): planning the ranked search cost ~0.9 ms
 * each time, five times what running it costs for a selective query.
 * Texts use `?` placeholders; they become `$1, $2, ...` on PostgreSQL.
 */
export class SqlRunner {
  private readonly statements = new Map<string, BetterSqlite3.Statement>();
  private readonly postgresTexts = new Map<string, { name: string; text: string }>();
  /** SQLite: each text {@link allAsJson} ran, wrapped to answer one JSON text. */
  private readonly jsonTexts = new Map<string, string>();
  private readonly sqlite: BetterSqlite3.Database | undefined;
  private readonly readers: SqliteReaders | undefined;
  private readonly pool: pg.Pool | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    readonly dialect: Dialect,
    connections: RunnerConnections = {},
  ) {
    this.sqlite = connections.sqlite;
    this.readers = connections.readers;
    this.pool = connections.pool;
  }

  /** Every row of `text` run with `params`. */
  async all(text: string, params: readonly unknown[]): Promise<Row[]> {
    // Off the event loop; a reader sees only committed rows, never a transaction under way.
    if (this.readers?.available) return this.readers.all(text, params);
    if (this.sqlite) {
      // Inside someone's open transaction, a read on the shared connection would see its
      // uncommitted rows: wait for Kysely's connection lock instead.
      if (!this.sqlite.inTransaction) {
        return this.statement(this.sqlite, text).all(...params) as Row[];
      }
      const result = await this.db.executeQuery<Row>(CompiledQuery.raw(text, [...params]));
      return result.rows;
    }
    let named = this.postgresTexts.get(text);
    if (named === undefined) {
      let n = 0;
      named = {
        name: `weft_registry_read_${this.postgresTexts.size + 1}`,
        text: text.replace(/\?/g, () => `$${++n}`),
      };
      this.postgresTexts.set(text, named);
    }
    if (this.pool) {
      return (await this.pool.query<Row>({ ...named, values: [...params] })).rows;
    }
    const result = await this.db.executeQuery<Row>(CompiledQuery.raw(named.text, [...params]));
    return result.rows;
  }

  /**
   * Every row of `text` run with `params`, as objects of `fields` (the columns `text` names),
   * in the order of `text`. On SQLite the database writes the rows as one JSON text
   * (`json_group_array`): a reader thread then hands over one string. Making a page of 20
   * plugin rows as objects and copying them to the event loop took ~75 µs of the reader's
   * time; the text takes ~25 (and parsing it on the event loop, what the copy took there).
   */
  async allAsJson(
    text: string,
    params: readonly unknown[],
    fields: readonly string[],
  ): Promise<Row[]> {
    if (this.dialect !== 'sqlite') return this.all(text, params);
    let wrapped = this.jsonTexts.get(text);
    if (wrapped === undefined) {
      const pairs = fields.map((f) => `'${f}', ${f}`).join(', ');
      wrapped = `SELECT json_group_array(json_object(${pairs})) AS rows FROM (${text})`;
      this.jsonTexts.set(text, wrapped);
    }
    const [row] = await this.all(wrapped, params);
    return JSON.parse(String(row?.['rows'] ?? '[]')) as Row[];
  }

  private statement(sqlite: BetterSqlite3.Database, text: string): BetterSqlite3.Statement {
    let statement = this.statements.get(text);
    if (!statement) {
      if (this.statements.size >= MAX_STATEMENTS) this.statements.clear();
      statement = sqlite.prepare(text);
      this.statements.set(text, statement);
    }
    return statement;
  }
}

/**
 * Plugin columns, its versions as a JSON array and (`withDefinition`) one definition, in one
 * statement.
 */
function detailText(dialect: Dialect, withDefinition: boolean): string {
  const pairs = VERSION_COLUMNS.map((f) => `'${f}', v.${f}`).join(', ');
  const versions =
    dialect === 'postgres'
      ? `json_agg(json_build_object(${pairs}))`
      : `json_group_array(json_object(${pairs}))`;
  return `SELECT p.slug, p.slug_key, p.kind, p.owner, p.created_at, p.updated_at, p.downloads,
      p.latest_version, p.name, p.description, p.author, p.tags,
      (SELECT ${versions} FROM plugin_versions v WHERE v.slug = p.slug) AS versions${
        withDefinition
          ? `,
      (SELECT v.definition FROM plugin_versions v
        WHERE v.slug = p.slug AND v.version = coalesce(?, p.latest_version)) AS definition`
          : ''
      }
    FROM plugins p WHERE p.slug = ?`;
}

const DETAIL_TEXTS: Record<Dialect, string> = {
  sqlite: detailText('sqlite', true),
  postgres: detailText('postgres', true),
};
const STATE_TEXTS: Record<Dialect, string> = {
  sqlite: detailText('sqlite', false),
  postgres: detailText('postgres', false),
};
const BODY_TEXT = 'SELECT body FROM plugin_versions WHERE slug = ? AND version = ?';

/** JSON that PostgreSQL hands over parsed and SQLite as text. */
function fromJson<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

/** The plugin row and its versions as `PluginState`, from a row of a detail statement. */
function toState(row: Row): PluginState {
  const versions = fromJson<Parameters<typeof toVersionRecord>[0][] | null>(row['versions']);
  return {
    plugin: toPluginRecord(row as Parameters<typeof toPluginRecord>[0]),
    versions: (versions ?? []).map(toVersionRecord),
  };
}

/** {@link RegistryStore.getPlugin} in one statement. */
export async function readState(runner: SqlRunner, slug: string): Promise<PluginState | undefined> {
  const [row] = await runner.all(STATE_TEXTS[runner.dialect], [slug]);
  return row ? toState(row) : undefined;
}

/** {@link RegistryStore.getBody}: the exact bytes of one version's definition. */
export async function readBody(
  runner: SqlRunner,
  slug: string,
  version: string,
): Promise<Uint8Array | undefined> {
  const [row] = await runner.all(BODY_TEXT, [slug, version]);
  return row ? new Uint8Array(row['body'] as Uint8Array) : undefined;
}

/** {@link RegistryStore.getDetail} in one statement. */
export async function readDetail(
  runner: SqlRunner,
  slug: string,
  version: string | undefined,
): Promise<{ state: PluginState; definition: StoredDefinition | undefined } | undefined> {
  const [row] = await runner.all(DETAIL_TEXTS[runner.dialect], [version ?? null, slug]);
  if (!row) return undefined;
  const definition = row['definition'];
  return {
    state: toState(row),
    definition:
      definition === null || definition === undefined
        ? undefined
        : fromJson<StoredDefinition>(definition),
  };
}
