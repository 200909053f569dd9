/**
 * Rewrites docs/settings.md's table of `weft server` settings from the settings schema
 * (packages/server/src/settings/schema.ts). Run with `npm run settings-table` after changing a
 * setting; a test fails while that table differs.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { settingsTable, withSettingsTable } from '@weft/server';

const target = fileURLToPath(new URL('../docs/settings.md', import.meta.url));
const table = await format(settingsTable(), {
  ...(await resolveConfig(target)),
  parser: 'markdown',
});
writeFileSync(target, withSettingsTable(readFileSync(target, 'utf8'), table));
console.log(`wrote the settings table of ${target}`);
