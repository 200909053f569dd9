import type BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, type Kysely } from 'kysely';
import type { PluginDefinition, PluginState } from '@weft/core';
import type { Database, Dialect } from './database.js';
import { toPluginRecord, toVersionRecord, VERSION_COLUMNS } from './rows.js';

/** A row as the database returns it. */
export type Row = Record<string, unknown>;

/** Most SQLite statements kept prepared (the registry's hot reads need a handful). */
const MAX_STATEMENTS = 64;

/**
 * Runs the registry's hot reads as fixed SQL texts: on SQLite through statements prepared once
 * (Kysely prepares each query anew) on the connection under Kysely, on PostgreSQL through the
 * pool in one round trip each.
 * Texts use `?` placeholders; they become `$1, $2, ...` on PostgreSQL.
 */
export class SqlRunner {
  private readonly statements = new Map<string, BetterSqlite3.Statement>();
  private readonly postgresTexts = new Map<string, string>();

  constructor(
    private readonly db: Kysely<Database>,
    readonly dialect: Dialect,
    private readonly sqlite: BetterSqlite3.Database | undefined,
  ) {}

  /** Every row of `text` run with `params`. */
  async all(text: string, params: readonly unknown[]): Promise<Row[]> {
    if (this.sqlite) {
      // Inside someone's open transaction, a read on the shared connection would see its
      // uncommitted rows: wait for Kysely's connection lock instead.
      if (!this.sqlite.inTransaction) {
        return this.statement(this.sqlite, text).all(...params) as Row[];
      }
      const result = await this.db.executeQuery<Row>(CompiledQuery.raw(text, [...params]));
      return result.rows;
    }
    let numbered = this.postgresTexts.get(text);
    if (numbered === undefined) {
      let n = 0;
      numbered = text.replace(/\?/g, () => `$${++n}`);
      this.postgresTexts.set(text, numbered);
    }
    const result = await this.db.executeQuery<Row>(CompiledQuery.raw(numbered, [...params]));
    return result.rows;
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

/** Plugin columns, its versions as a JSON array and one definition, in one statement. */
function detailText(dialect: Dialect): string {
  const pairs = VERSION_COLUMNS.map((f) => `'${f}', v.${f}`).join(', ');
  const versions =
    dialect === 'postgres'
      ? `json_agg(json_build_object(${pairs}))`
      : `json_group_array(json_object(${pairs}))`;
  return `SELECT p.slug, p.slug_key, p.owner, p.created_at, p.updated_at, p.downloads,
      p.latest_version, p.name, p.description, p.author, p.tags,
      (SELECT ${versions} FROM plugin_versions v WHERE v.slug = p.slug) AS versions,
      (SELECT v.definition FROM plugin_versions v
        WHERE v.slug = p.slug AND v.version = coalesce(?, p.latest_version)) AS definition
    FROM plugins p WHERE p.slug = ?`;
}

const DETAIL_TEXTS: Record<Dialect, string> = {
  sqlite: detailText('sqlite'),
  postgres: detailText('postgres'),
};

/** JSON that PostgreSQL hands over parsed and SQLite as text. */
function fromJson<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

/** {@link RegistryStore.getDetail} in one statement. */
export async function readDetail(
  runner: SqlRunner,
  slug: string,
  version: string | undefined,
): Promise<{ state: PluginState; definition: PluginDefinition | undefined } | undefined> {
  const [row] = await runner.all(DETAIL_TEXTS[runner.dialect], [version ?? null, slug]);
  if (!row) return undefined;
  const versions = fromJson<Parameters<typeof toVersionRecord>[0][] | null>(row['versions']);
  const definition = row['definition'];
  return {
    state: {
      plugin: toPluginRecord(row as Parameters<typeof toPluginRecord>[0]),
      versions: (versions ?? []).map(toVersionRecord),
    },
    definition:
      definition === null || definition === undefined
        ? undefined
        : fromJson<PluginDefinition>(definition),
  };
}
