import { sql, type Kysely } from 'kysely';
import type { DownloadCount, DownloadStats } from '@weft/core';
import type { Database } from './database.js';

/**
 * Adds counted downloads in one transaction: each entry raises the plugin's total, the
 * version's total and the day's row by its count.
 */
export async function recordDownloads(
  db: Kysely<Database>,
  counts: readonly DownloadCount[],
): Promise<void> {
  if (counts.length === 0) return;
  await db.transaction().execute(async (trx) => {
    for (const { slug, version, date, count } of counts) {
      await trx
        .updateTable('plugins')
        .set({ downloads: sql`downloads + ${count}` })
        .where('slug', '=', slug)
        .execute();
      await trx
        .updateTable('plugin_versions')
        .set({ downloads: sql`downloads + ${count}` })
        .where('slug', '=', slug)
        .where('version', '=', version)
        .execute();
      await trx
        .insertInto('download_days')
        .values({ slug, version, date, downloads: count })
        .onConflict((oc) =>
          oc
            .columns(['slug', 'version', 'date'])
            .doUpdateSet({ downloads: sql`download_days.downloads + ${count}` }),
        )
        .execute();
    }
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
