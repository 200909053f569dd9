import type { Kysely } from 'kysely';
import {
  API_KEY_CACHE_MS,
  ConflictError,
  type ApiKeyRecord,
  type Decision,
  type DownloadCount,
  type DownloadStats,
  type PluginRecord,
  type PluginState,
  type RegistryStore,
  type SearchQuery,
  type SigningKeyRecord,
  type StoredDefinition,
} from '@weft/core';
import { applyChange } from './apply-change.js';
import type { PgChangeFeed } from './pg-change-feed.js';
import type { Database, Dialect } from './database.js';
import {
  isUniqueViolation,
  PLUGIN_COLUMNS,
  toPluginRecord,
  toVersionRecord,
  VERSION_COLUMNS,
} from './rows.js';
import {
  readBody,
  readDetail,
  readState,
  SqlRunner,
  type RunnerConnections,
} from './registry-reads.js';
import { searchPlugins } from './search.js';
import { downloadStats, recordDownloads } from './downloads.js';

/** Most API keys {@link KyselyRegistryStore.findApiKey} keeps (the oldest found go first). */
const MAX_CACHED_KEYS = 10_000;

/** What a {@link KyselyRegistryStore} uses beside Kysely. */
export interface RegistryStoreConnections extends RunnerConnections {
  /** Runs before the connection closes (SQLite: stops its checkpoint thread). */
  beforeClose?: () => Promise<void> | undefined;
  /** PostgreSQL: announces plugin changes to the other processes, and hears theirs. */
  changes?: PgChangeFeed;
}

/** The registry store port over Kysely, for SQLite and PostgreSQL alike. */
export class KyselyRegistryStore implements RegistryStore {
  private readonly runner: SqlRunner;
  /**
   * API keys found so far, by id, with when they were read. A key changes only when it is
   * revoked (by any process), so an entry is read again once it is `API_KEY_CACHE_MS` old;
   * unknown ids are not kept (another process may create them).
   */
  private readonly keys = new Map<string, { record: ApiKeyRecord; readAt: number }>();

  private readonly beforeClose: (() => Promise<void> | undefined) | undefined;
  private readonly changes: PgChangeFeed | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    readonly kind: Dialect,
    connections: RegistryStoreConnections = {},
  ) {
    this.runner = new SqlRunner(db, kind, connections);
    this.beforeClose = connections.beforeClose;
    this.changes = connections.changes;
  }

  async modifyPlugin<T>(
    slug: string,
    slugKey: string,
    decide: (state: PluginState | undefined, confusableWith: string | undefined) => Decision<T>,
  ): Promise<T> {
    try {
      return await this.db.transaction().execute(async (trx) => {
        let select = trx.selectFrom('plugins').select(PLUGIN_COLUMNS).where('slug', '=', slug);
        if (this.kind === 'postgres') select = select.forUpdate();
        const row = await select.executeTakeFirst();
        let state: PluginState | undefined;
        let confusable: string | undefined;
        if (row) {
          const versions = await trx
            .selectFrom('plugin_versions')
            .select(VERSION_COLUMNS)
            .where('slug', '=', slug)
            .execute();
          state = { plugin: toPluginRecord(row), versions: versions.map(toVersionRecord) };
        } else {
          const other = await trx
            .selectFrom('plugins')
            .select('slug')
            .where('slug_key', '=', slugKey)
            .executeTakeFirst();
          confusable = other?.slug;
        }
        const { change, result } = decide(state, confusable);
        await applyChange(trx, this.kind, slug, change);
        await this.changes?.announce(trx, slug);
        return result;
      });
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new ConflictError(
          `${slug} was changed by another request at the same time; read it again and retry`,
          { slug, constraint: 'concurrent_change' },
        );
      }
      throw error;
    }
  }

  async getPlugin(slug: string): Promise<PluginState | undefined> {
    return readState(this.runner, slug);
  }

  getDetail(
    slug: string,
    version: string | undefined,
  ): Promise<{ state: PluginState; definition: StoredDefinition | undefined } | undefined> {
    return readDetail(this.runner, slug, version);
  }

  async getDefinition(slug: string, version: string): Promise<StoredDefinition | undefined> {
    const row = await this.db
      .selectFrom('plugin_versions')
      .select('definition')
      .where('slug', '=', slug)
      .where('version', '=', version)
      .executeTakeFirst();
    return row ? (JSON.parse(row.definition) as StoredDefinition) : undefined;
  }

  getBody(slug: string, version: string): Promise<Uint8Array | undefined> {
    return readBody(this.runner, slug, version);
  }

  recordDownloads(counts: readonly DownloadCount[]): Promise<void> {
    return recordDownloads(this.db, this.kind, counts);
  }

  search(query: SearchQuery): Promise<{ total: number; plugins: PluginRecord[] }> {
    return searchPlugins(this.runner, query);
  }

  downloadStats(slug: string, sinceDate: string): Promise<DownloadStats> {
    return downloadStats(this.db, slug, sinceDate);
  }

  async insertApiKey(record: ApiKeyRecord): Promise<void> {
    await this.db
      .insertInto('api_keys')
      .values({
        ...record,
        admin: record.admin ? 1 : 0,
        roles: JSON.stringify(record.roles),
        permissions: JSON.stringify(record.permissions),
      })
      .execute();
  }

  async findApiKey(id: string): Promise<ApiKeyRecord | undefined> {
    const known = this.keys.get(id);
    const now = performance.now();
    if (known && now - known.readAt < API_KEY_CACHE_MS) return known.record;
    const [row] = await this.runner.all(
      'SELECT id, name, owner, hash, admin, roles, permissions, created_at, revoked_at FROM api_keys WHERE id = ?',
      [id],
    );
    if (!row) {
      this.keys.delete(id);
      return undefined;
    }
    const revokedAt = row['revoked_at'] == null ? undefined : String(row['revoked_at']);
    // The same object while unchanged: callers remember work per record.
    const record: ApiKeyRecord =
      known && known.record.revoked_at === revokedAt
        ? known.record
        : {
            id: String(row['id']),
            name: String(row['name']),
            owner: String(row['owner']),
            hash: String(row['hash']),
            admin: Number(row['admin']) === 1,
            roles: JSON.parse(String(row['roles'])) as string[],
            permissions: JSON.parse(String(row['permissions'])) as string[],
            created_at: String(row['created_at']),
            ...(revokedAt === undefined ? {} : { revoked_at: revokedAt }),
          };
    this.keys.delete(id);
    if (this.keys.size >= MAX_CACHED_KEYS) this.keys.delete(this.keys.keys().next().value!);
    this.keys.set(id, { record, readAt: now });
    return record;
  }

  async revokeApiKey(id: string, at: string): Promise<ApiKeyRecord | undefined> {
    await this.db
      .updateTable('api_keys')
      .set({ revoked_at: at })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .execute();
    this.keys.delete(id);
    return this.findApiKey(id);
  }

  async insertSigningKey(record: SigningKeyRecord): Promise<boolean> {
    try {
      await this.db
        .insertInto('signing_keys')
        .values({
          ...record,
          key_ids: JSON.stringify(record.key_ids),
          user_ids: JSON.stringify(record.user_ids),
        })
        .execute();
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async listSigningKeys(owner: string): Promise<SigningKeyRecord[]> {
    const rows = await this.db
      .selectFrom('signing_keys')
      .selectAll()
      .where('owner', '=', owner)
      .orderBy('created_at')
      .execute();
    return rows.map((row) => ({
      ...row,
      key_ids: JSON.parse(row.key_ids) as string[],
      user_ids: JSON.parse(row.user_ids) as string[],
    }));
  }

  async ping(): Promise<void> {
    await this.db.selectFrom('api_keys').select('id').limit(1).execute();
  }

  /** PostgreSQL: other processes' plugin changes, announced with LISTEN/NOTIFY; SQLite: none. */
  async watchPluginChanges(listener: (slug: string | null) => void): Promise<() => Promise<void>> {
    return this.changes ? this.changes.watch(listener) : async () => {};
  }

  async close(): Promise<void> {
    await this.changes?.close();
    await this.beforeClose?.();
    await this.db.destroy();
  }
}
