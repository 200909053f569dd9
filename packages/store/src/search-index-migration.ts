import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from './database.js';

/**
 * `0021_search_indexes`: every search shape is served by an index.
 *
 * - Without words (browse, by kind, by tag), the page walks `plugins_listed` (or
 *   `plugins_listed_kind`) in the order of the answer — downloads, then slug bytewise — for
 *   `offset + limit` entries and stops, and the total counts index entries. Before, every such
 *   search read and sorted all plugin rows (~10 ms at 10,000 plugins). Partial: unlisted slugs
 *   are never found.
 * - SQLite: `plugins_search_rank` covers what ranking a full-text match reads (search id,
 *   kind, downloads, slug, folded name, whether listed), so no match reads its plugin row; and the full-text
 *   table is rebuilt with prefix indexes of 1 to 3 characters, so a prefix query (what a search
 *   box sends while typing) reads one entry instead of merging every word that starts with it.
 *   Its rows are copied as they are (already folded by core).
 * - PostgreSQL keeps its GIN full-text index (`plugins_search`), which answers prefix queries
 *   from its sorted entries.
 */
export function searchIndexMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const slug = dialect === 'postgres' ? 'slug COLLATE "C"' : 'slug';
      await sql`CREATE INDEX plugins_listed ON plugins (downloads DESC, ${sql.raw(slug)})
        WHERE latest_version IS NOT NULL`.execute(db);
      await sql`CREATE INDEX plugins_listed_kind ON plugins (kind, downloads DESC, ${sql.raw(slug)})
        WHERE latest_version IS NOT NULL`.execute(db);
      if (dialect === 'postgres') {
        await sql`ANALYZE plugins`.execute(db);
        return;
      }
      await sql`CREATE INDEX plugins_search_rank
        ON plugins (search_id, kind, downloads, slug, name_key, latest_version)`.execute(db);
      await sql`CREATE TEMP TABLE plugin_search_copy AS
        SELECT rowid AS id, slug, name, tags, description FROM plugin_search`.execute(db);
      await sql`DROP TABLE plugin_search`.execute(db);
      await sql`CREATE VIRTUAL TABLE plugin_search USING fts5(
        slug UNINDEXED, name, tags, description, tokenize = 'unicode61 remove_diacritics 2',
        prefix = '1 2 3')`.execute(db);
      await sql`INSERT INTO plugin_search (rowid, slug, name, tags, description)
        SELECT id, slug, name, tags, description FROM plugin_search_copy`.execute(db);
      await sql`DROP TABLE plugin_search_copy`.execute(db);
      await sql`INSERT INTO plugin_search (plugin_search) VALUES ('optimize')`.execute(db);
    },
  };
}
