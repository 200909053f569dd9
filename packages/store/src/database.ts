import type { Generated } from 'kysely';
import type { ExecutionsTables } from './executions-tables.js';
import type { TriggerTables } from './triggers-tables.js';
import type { AuditEntriesTable } from './audit-migration.js';
import type { AuditAnchorTable } from './retention-migration.js';
import type { BudgetTables } from './budgets-migration.js';

/** `plugins`: one row per slug, with the searchable listing of its latest version. */
export interface PluginsTable {
  slug: string;
  slug_key: string;
  /** `plugin` or `agent` (migration 0015). */
  kind: Generated<string>;
  owner: string;
  created_at: string;
  updated_at: string;
  downloads: Generated<number>;
  latest_version: string | null;
  name: string;
  description: string;
  author: string;
  /** JSON array of strings. */
  tags: string;
  /** The name as an exact search match compares it (`exactKey` of core). */
  name_key: Generated<string>;
}

/** `plugin_versions`: every version ever published, removed ones included. */
export interface PluginVersionsTable {
  slug: string;
  version: string;
  status: string;
  published_at: string;
  checksum: string;
  content_type: string;
  body: Uint8Array;
  /** JSON of the parsed definition. */
  definition: string;
  signature_key_id: string | null;
  deprecated_reason: string | null;
  replacement_version: string | null;
  deprecated_at: string | null;
  removed_at: string | null;
  downloads: Generated<number>;
}

/** `plugin_tags`: tag filter of the search. */
export interface PluginTagsTable {
  slug: string;
  tag: string;
}

/** `download_days`: downloads per version per UTC day. */
export interface DownloadDaysTable {
  slug: string;
  version: string;
  date: string;
  downloads: number;
}

/** `api_keys`: hashed API keys. */
export interface ApiKeysTable {
  id: string;
  name: string;
  owner: string;
  hash: string;
  /** 0 or 1. */
  admin: number;
  /** JSON array of role names. */
  roles: string;
  /** JSON array of permissions. */
  permissions: string;
  created_at: string;
  /** ISO time of revocation; null while valid. */
  revoked_at: string | null;
}

/** `signing_keys`: owners' OpenPGP public keys. */
export interface SigningKeysTable {
  owner: string;
  fingerprint: string;
  key_id: string;
  /** JSON array of key ids (primary and subkeys). */
  key_ids: string;
  armored: string;
  /** JSON array of user ids. */
  user_ids: string;
  created_at: string;
}

/** `router_instances`: the router's routing table (docs/router.md#health-checks), with health-check leases. */
export interface RouterInstancesTable {
  plugin_slug: string;
  instance_id: string;
  version: string;
  url: string;
  /** JSON array of action names. */
  actions: string;
  health_check_url: string;
  region: string | null;
  /** JSON object. */
  metadata: string;
  registered_at: string;
  updated_at: string;
  health: string;
  last_check_at: string | null;
  last_error: string | null;
  consecutive_failures: Generated<number>;
  /** ms since the epoch (PostgreSQL bigint comes back as a string). */
  next_check_at: number | string;
  lease_owner: string | null;
  lease_until: Generated<number | string>;
}

/** The tables of the registry, as Kysely sees them. */
export interface Database extends TriggerTables, ExecutionsTables, BudgetTables {
  router_instances: RouterInstancesTable;
  plugins: PluginsTable;
  plugin_versions: PluginVersionsTable;
  plugin_tags: PluginTagsTable;
  download_days: DownloadDaysTable;
  api_keys: ApiKeysTable;
  signing_keys: SigningKeysTable;
  audit_entries: AuditEntriesTable;
  audit_anchor: AuditAnchorTable;
}

/** The SQL dialects weft stores to. */
export type Dialect = 'sqlite' | 'postgres';
