import { sql, type Kysely, type Transaction } from 'kysely';
import {
  assertNever,
  exactKey,
  searchText,
  type NewVersion,
  type PluginChange,
  type PluginDefinition,
  type PluginListing,
} from '@weft/core';
import type { Database, Dialect } from './database.js';

type Trx = Transaction<Database>;

/** Applies one decided change to `slug` inside the caller's transaction. */
export async function applyChange(
  trx: Trx,
  dialect: Dialect,
  slug: string,
  change: PluginChange,
): Promise<void> {
  switch (change.kind) {
    case 'none':
      return;
    case 'create':
      await trx
        .insertInto('plugins')
        .values({
          slug,
          slug_key: change.slug_key,
          kind: change.version.kind,
          owner: change.owner,
          created_at: change.at,
          updated_at: change.at,
          ...listingColumns(null),
        })
        .execute();
      await insertVersion(trx, slug, change.version);
      await setListing(trx, dialect, slug, change.version.version, change.at);
      return;
    case 'add_version':
      await insertVersion(trx, slug, change.version);
      await setListing(trx, dialect, slug, change.latest, change.at);
      return;
    case 'deprecate':
      await trx
        .updateTable('plugin_versions')
        .set({
          status: 'deprecated',
          deprecated_reason: change.reason,
          replacement_version: change.replacement_version,
          deprecated_at: change.at,
        })
        .where('slug', '=', slug)
        .where('version', '=', change.version)
        .execute();
      await trx
        .updateTable('plugins')
        .set({ updated_at: change.at })
        .where('slug', '=', slug)
        .execute();
      return;
    case 'remove':
      await trx
        .updateTable('plugin_versions')
        .set({ status: 'removed', removed_at: change.at })
        .where('slug', '=', slug)
        .where('version', '=', change.version)
        .execute();
      await setListing(trx, dialect, slug, change.latest, change.at);
      return;
    default:
      assertNever(change);
  }
}

async function insertVersion(trx: Trx, slug: string, version: NewVersion): Promise<void> {
  await trx
    .insertInto('plugin_versions')
    .values({
      slug,
      version: version.version,
      status: 'published',
      published_at: version.published_at,
      checksum: version.checksum,
      content_type: version.content_type,
      body: Buffer.from(version.body),
      definition: JSON.stringify(version.definition),
      signature_key_id: version.signature_key_id,
    })
    .execute();
}

function listingColumns(listing: PluginListing | null) {
  return {
    latest_version: listing?.latest_version ?? null,
    name: listing?.name ?? '',
    name_key: exactKey(listing?.name ?? ''),
    description: listing?.description ?? '',
    author: listing?.author ?? '',
    tags: JSON.stringify(listing?.tags ?? []),
  };
}

/** The listing of a plugin: metadata of the stored definition of its latest version. */
async function readListing(
  trx: Trx,
  slug: string,
  latest: string | null,
): Promise<PluginListing | null> {
  if (latest === null) return null;
  const row = await trx
    .selectFrom('plugin_versions')
    .select('definition')
    .where('slug', '=', slug)
    .where('version', '=', latest)
    .executeTakeFirstOrThrow();
  const definition = JSON.parse(row.definition) as PluginDefinition;
  return {
    latest_version: latest,
    name: definition.name,
    description: definition.description,
    author: definition.author,
    tags: definition.tags,
  };
}

/** Writes the listing, the tag rows and the full-text index of a plugin. */
async function setListing(
  trx: Trx,
  dialect: Dialect,
  slug: string,
  latest: string | null,
  at: string,
): Promise<void> {
  const listing = await readListing(trx, slug, latest);
  await trx
    .updateTable('plugins')
    .set({ ...listingColumns(listing), updated_at: at })
    .where('slug', '=', slug)
    .execute();
  await trx.deleteFrom('plugin_tags').where('slug', '=', slug).execute();
  if (listing && listing.tags.length > 0) {
    await trx
      .insertInto('plugin_tags')
      .values(listing.tags.map((tag) => ({ slug, tag })))
      .execute();
  }
  await writeSearchIndex(trx, dialect, slug, listing);
}

/** The words a plugin is found by: folded by core's `searchText`, the same on both stores. */
export function listingSearchText(listing: Pick<PluginListing, 'name' | 'tags' | 'description'>) {
  return {
    name: searchText(listing.name),
    tags: searchText(listing.tags.join(' ')),
    description: searchText(listing.description),
  };
}

/**
 * Writes the full-text index entry of `slug` (none when it is not listed). The database's own
 * tokenizer only splits the already folded words at their spaces, so what matches is decided
 * by core, not by the database's locale or accent rules.
 */
export async function writeSearchIndex(
  db: Kysely<Database> | Trx,
  dialect: Dialect,
  slug: string,
  listing: Pick<PluginListing, 'name' | 'tags' | 'description'> | null,
): Promise<void> {
  const { name, tags, description } = listingSearchText(
    listing ?? { name: '', tags: [], description: '' },
  );
  if (dialect === 'postgres') {
    await sql`UPDATE plugins SET
        search_name = to_tsvector('simple', ${name}),
        search_tags = to_tsvector('simple', ${tags}),
        search_all = to_tsvector('simple', ${name}) || to_tsvector('simple', ${tags})
          || to_tsvector('simple', ${description})
      WHERE slug = ${slug}`.execute(db);
    return;
  }
  // The full-text row is keyed by the plugin's search id, given at its first listing (one
  // writer at a time on SQLite, so the next number is free).
  await sql`DELETE FROM plugin_search
    WHERE rowid = (SELECT search_id FROM plugins WHERE slug = ${slug})`.execute(db);
  if (listing) {
    await sql`UPDATE plugins SET search_id = (SELECT coalesce(max(search_id), 0) + 1 FROM plugins)
      WHERE slug = ${slug} AND search_id IS NULL`.execute(db);
    await sql`INSERT INTO plugin_search (rowid, slug, name, tags, description)
      VALUES ((SELECT search_id FROM plugins WHERE slug = ${slug}), ${slug}, ${name}, ${tags},
        ${description})`.execute(db);
  }
}
