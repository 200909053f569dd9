import type { Selectable } from 'kysely';
import type { PluginKind, PluginRecord, VersionRecord, VersionStatus } from '@weft/core';
import type { PluginsTable, PluginVersionsTable } from './database.js';

/** A `plugins` row as a {@link PluginRecord}. */
export function toPluginRecord(row: Omit<Selectable<PluginsTable>, 'name_key'>): PluginRecord {
  return {
    slug: row.slug,
    slug_key: row.slug_key,
    kind: row.kind === 'agent' ? 'agent' : ('plugin' satisfies PluginKind),
    owner: row.owner,
    created_at: row.created_at,
    updated_at: row.updated_at,
    downloads: Number(row.downloads),
    listing:
      row.latest_version === null
        ? null
        : {
            latest_version: row.latest_version,
            name: row.name,
            description: row.description,
            author: row.author,
            tags: JSON.parse(row.tags) as string[],
          },
  };
}

/** The columns of `plugins` that {@link toPluginRecord} reads. */
export const PLUGIN_COLUMNS = [
  'slug',
  'slug_key',
  'kind',
  'owner',
  'created_at',
  'updated_at',
  'downloads',
  'latest_version',
  'name',
  'description',
  'author',
  'tags',
] as const;

/** The columns of `plugin_versions` that {@link toVersionRecord} reads (no body, no definition). */
export const VERSION_COLUMNS = [
  'slug',
  'version',
  'status',
  'published_at',
  'checksum',
  'content_type',
  'signature_key_id',
  'deprecated_reason',
  'replacement_version',
  'deprecated_at',
  'removed_at',
  'downloads',
] as const;

type VersionRow = Pick<Selectable<PluginVersionsTable>, (typeof VERSION_COLUMNS)[number]>;

/** A `plugin_versions` row as a {@link VersionRecord}. */
export function toVersionRecord(row: VersionRow): VersionRecord {
  return {
    slug: row.slug,
    version: row.version,
    status: row.status as VersionStatus,
    published_at: row.published_at,
    checksum: row.checksum,
    content_type: row.content_type,
    signature_key_id: row.signature_key_id,
    deprecated_reason: row.deprecated_reason,
    replacement_version: row.replacement_version,
    deprecated_at: row.deprecated_at,
    removed_at: row.removed_at,
    downloads: Number(row.downloads),
  };
}

/** True when `error` is a unique or primary key violation (SQLite or PostgreSQL). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    code === '23505' ||
    code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    code === 'SQLITE_CONSTRAINT_UNIQUE'
  );
}
