import { readFileSync } from 'node:fs';
import { format, resolveConfig } from 'prettier';
import { describe, expect, it } from 'vitest';
import { SERVER_SETTINGS } from './schema.js';
import { settingsTable, withSettingsTable } from './table.js';

const settingsDoc = new URL('../../../../docs/settings.md', import.meta.url);

describe("docs/settings.md's settings table", () => {
  it('is the one the settings schema generates (run `npm run settings-table` when this fails)', async () => {
    const readme = readFileSync(settingsDoc, 'utf8');
    const table = await format(settingsTable(), {
      ...(await resolveConfig(settingsDoc.pathname)),
      parser: 'markdown',
    });
    expect(withSettingsTable(readme, table)).toBe(readme);
  });

  it('lists every setting with a meaning', () => {
    const table = settingsTable();
    for (const [name, schema] of Object.entries(SERVER_SETTINGS.properties)) {
      expect(table).toContain(`| \`${name}\` |`);
      expect((schema as { description?: string }).description).toBeTruthy();
    }
  });
});
