import type { ApiKeyRecord, SigningKeyRecord } from './keys.js';
import type { PluginDefinition } from './plugin-definition.js';

/**
 * What a registry entry holds: a plugin definition, or an agent definition (a file with a
 * top-level `agent`, docs/agents.md#publishing). A slug keeps the kind of its first version.
 */
export type PluginKind = 'plugin' | 'agent';

/** Every {@link PluginKind}. */
export const PLUGIN_KINDS: readonly PluginKind[] = ['plugin', 'agent'];

/** State of one version of a plugin (docs/registry.md#version-states). */
export type VersionStatus = 'published' | 'deprecated' | 'removed';

/** What a store keeps of one version, without its bytes. */
export interface VersionRecord {
  slug: string;
  version: string;
  status: VersionStatus;
  published_at: string;
  checksum: string;
  content_type: string;
  signature_key_id: string | null;
  deprecated_reason: string | null;
  replacement_version: string | null;
  deprecated_at: string | null;
  removed_at: string | null;
  downloads: number;
}

/** The searchable projection of a plugin: its latest version's metadata. */
export interface PluginListing {
  latest_version: string;
  name: string;
  description: string;
  author: string;
  tags: string[];
}

/** What a store keeps of a plugin. */
export interface PluginRecord {
  slug: string;
  /** The slug without `-`, `_` and `.`: two slugs with the same key are confusable. */
  slug_key: string;
  /** `plugin`, or `agent` for a published agent definition. */
  kind: PluginKind;
  owner: string;
  created_at: string;
  updated_at: string;
  downloads: number;
  /** Null once every version is removed. */
  listing: PluginListing | null;
}

/** A plugin and every version it ever had (removed ones included). */
export interface PluginState {
  plugin: PluginRecord;
  versions: VersionRecord[];
}

/**
 * What the registry stores of a version: a plugin definition, or, for a version of kind `agent`,
 * the plugin-shaped summary of the agent (name, description, no actions) with the agent
 * definition itself in `agent`.
 */
export type StoredDefinition = PluginDefinition & { agent?: Record<string, unknown> };

/** A version to store, with its exact bytes and parsed definition. */
export interface NewVersion {
  /** The kind of the definition (the slug's kind when it is created). */
  kind: PluginKind;
  version: string;
  published_at: string;
  checksum: string;
  content_type: string;
  body: Uint8Array;
  definition: StoredDefinition;
  signature_key_id: string | null;
}

/**
 * A change to one plugin, decided by the registry rules and applied atomically by the store.
 * `latest` names the version whose definition becomes the plugin's listing (null: none left).
 */
export type PluginChange =
  | { kind: 'create'; owner: string; slug_key: string; at: string; version: NewVersion }
  | { kind: 'add_version'; at: string; version: NewVersion; latest: string | null }
  | {
      kind: 'deprecate';
      at: string;
      version: string;
      reason: string;
      replacement_version: string | null;
    }
  | { kind: 'remove'; at: string; version: string; latest: string | null }
  | { kind: 'none' };

/** What a decision function gives back: the change to apply and the answer to return. */
export interface Decision<T> {
  change: PluginChange;
  result: T;
}

/** Search parameters, already validated. */
export interface SearchQuery {
  /** Word prefixes folded by `searchWords`; every one must match (name, tags or description). */
  words: string[];
  /** The whole query folded by `exactKey`, for exact slug or name matches. */
  exact: string;
  tag: string | undefined;
  /** Only entries of this kind; undefined: every kind. */
  kind?: PluginKind | undefined;
  limit: number;
  offset: number;
}

/** One row of a search page. */
export interface SearchRow {
  plugin: PluginRecord & { listing: PluginListing };
}

/** Downloads of one version on one UTC day, to add to the counts. */
export interface DownloadCount {
  slug: string;
  version: string;
  /** `YYYY-MM-DD` (UTC). */
  date: string;
  /** How many downloads to add (at least 1). */
  count: number;
}

/** Downloads of a plugin, per version and per day. */
export interface DownloadStats {
  versions: { version: string; downloads: number }[];
  days: { date: string; version: string; downloads: number }[];
}

/**
 * Storage port of the registry. Rules live in `@weft/registry`; a store keeps data and applies
 * each {@link PluginChange} atomically, so that two concurrent publishes of a slug never both win.
 */
export interface RegistryStore {
  /** `sqlite` or `postgres`, for logs and health. */
  readonly kind: string;
  /**
   * Reads `slug` (and any existing slug with the same `slugKey`) under a lock, runs `decide`
   * and applies the change it returns in the same transaction. A unique-key race is a
   * `ConflictError`.
   */
  modifyPlugin<T>(
    slug: string,
    slugKey: string,
    decide: (state: PluginState | undefined, confusableWith: string | undefined) => Decision<T>,
  ): Promise<T>;
  /** A plugin and all its versions, or undefined. */
  getPlugin(slug: string): Promise<PluginState | undefined>;
  /**
   * A plugin, all its versions and, in the same read, the stored definition of `version` (or of
   * the listing's latest version when `version` is undefined; undefined when there is none).
   */
  getDetail(
    slug: string,
    version: string | undefined,
  ): Promise<{ state: PluginState; definition: StoredDefinition | undefined } | undefined>;
  /** The stored definition of one version (removed ones included). */
  getDefinition(slug: string, version: string): Promise<StoredDefinition | undefined>;
  /** The exact bytes of one version. */
  getBody(slug: string, version: string): Promise<Uint8Array | undefined>;
  /** Adds counted downloads (per plugin, version and UTC day), all in one transaction. */
  recordDownloads(counts: readonly DownloadCount[]): Promise<void>;
  /** Plugins matching `query`, ranked; only plugins with a listing. */
  search(query: SearchQuery): Promise<{ total: number; plugins: PluginRecord[] }>;
  /** Downloads per version, and per day since `sinceDate` (YYYY-MM-DD). */
  downloadStats(slug: string, sinceDate: string): Promise<DownloadStats>;
  /** Stores a new API key. */
  insertApiKey(record: ApiKeyRecord): Promise<void>;
  /**
   * The API key of this public id (revoked ones included, with `revoked_at`). A cached answer
   * is at most `API_KEY_CACHE_MS` old, so a revocation reaches every process within it.
   */
  findApiKey(id: string): Promise<ApiKeyRecord | undefined>;
  /**
   * Revokes a key at `at` (a key revoked before keeps its first time); undefined when no key
   * has this id. Every process refuses it within `API_KEY_CACHE_MS`.
   */
  revokeApiKey(id: string, at: string): Promise<ApiKeyRecord | undefined>;
  /** Stores a signing key; false when the owner already has this fingerprint. */
  insertSigningKey(record: SigningKeyRecord): Promise<boolean>;
  /** Every signing key of an owner. */
  listSigningKeys(owner: string): Promise<SigningKeyRecord[]>;
  /** Throws when the database cannot be reached. */
  ping(): Promise<void>;
  /**
   * Tells `listener` about plugin changes other processes on the same database commit: the slug
   * changed, or `null` when changes may have been missed (the feed reconnected), so that caches
   * of answers can drop what went stale at once. A store no other server writes to (an
   * embedded SQLite file) tells nothing. Resolves to a function that stops listening.
   */
  watchPluginChanges(listener: (slug: string | null) => void): Promise<() => Promise<void>>;
  /** Closes connections. */
  close(): Promise<void>;
}

/** Tells which active workflows use a plugin version; the runtime fills it in later. */
export interface PluginUsage {
  /** Names of active workflows using `slug@version`; empty when none. */
  activeWorkflows(slug: string, version: string): Promise<string[]>;
}

/** Until the runtime exists, nothing uses a plugin. */
export const noPluginUsage: PluginUsage = { activeWorkflows: async () => [] };
