import { sql, type Kysely, type Migration } from 'kysely';
import { exactKey } from '@weft/core';
import { writeSearchIndex } from './apply-change.js';
import type { Database, Dialect } from './database.js';

/**
 * `0006_search_fold`: search words are folded by core (accents dropped, lower-cased without a
 * locale) before either database indexes them, and exact name matches compare a folded
 * `name_key`. Before, SQLite's tokenizer dropped accents and PostgreSQL's did not, and SQLite's
 * `lower()` folded ASCII only, so the two stores answered some queries differently. Re-indexes
 * every listed plugin.
 */
export function searchFoldMigration(dialect: Dialect): Migration {
  return {
    async up(untyped: Kysely<unknown>) {
      const db = untyped as unknown as Kysely<Database>;
      await sql`ALTER TABLE plugins ADD COLUMN name_key text NOT NULL DEFAULT ''`.execute(db);
      const listed = await db
        .selectFrom('plugins')
        .select(['slug', 'name', 'tags', 'description'])
        .where('latest_version', 'is not', null)
        .execute();
      for (const row of listed) {
        const listing = {
          name: row.name,
          tags: JSON.parse(row.tags) as string[],
          description: row.description,
        };
        await db
          .updateTable('plugins')
          .set({ name_key: exactKey(row.name) })
          .where('slug', '=', row.slug)
          .execute();
        await writeSearchIndex(db, dialect, row.slug, listing);
      }
    },
  };
}
