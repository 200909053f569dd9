import { sql, type Kysely } from 'kysely';
import type { DownloadStats } from '@weft/core';
import type { Database } from './database.js';

/** Counts one download of `slug@version` on the UTC day of `at`, in one transaction. */
export async function recordDownload(
  db: Kysely<Database>,
  slug: string,
  version: string,
  at: string,
): Promise<void> {
  const date = at.slice(0, 10);
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('plugins')
      .set({ downloads: sql`downloads + 1` })
      .where('slug', '=', slug)
      .execute();
    await trx
      .updateTable('plugin_versions')
      .set({ downloads: sql`downloads + 1` })
      .where('slug', '=', slug)
      .where('version', '=', version)
      .execute();
    await trx
      .insertInto('download_days')
      .values({ slug, version, date, downloads: 1 })
      .onConflict((oc) =>
        oc
          .columns(['slug', 'version', 'date'])
          .doUpdateSet({ downloads: sql`download_days.downloads + 1` }),
      )
      .execute();
  });
}

/** Downloads of a plugin per version (all time) and per day and version since `sinceDate`. */
export async function downloadStats(
  db: Kysely<Database>,
  slug: string,
  sinceDate: string,
): Promise<DownloadStats> {
  const versions = await db
    .selectFrom('plugin_versions')
    .select(['version', 'downloads'])
    .where('slug', '=', slug)
    .execute();
  const days = await db
    .selectFrom('download_days')
    .select(['date', 'version', 'downloads'])
    .where('slug', '=', slug)
    .where('date', '>=', sinceDate)
    .orderBy('date')
    .orderBy('version')
    .execute();
  return {
    versions: versions.map((v) => ({ version: v.version, downloads: Number(v.downloads) })),
    days: days.map((d) => ({ date: d.date, version: d.version, downloads: Number(d.downloads) })),
  };
}
