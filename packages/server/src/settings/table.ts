import { SERVER_SETTINGS, type SettingSchema } from './schema.js';

/** The comments around the settings table of docs/settings.md, which `npm run settings-table` rewrites. */
export const TABLE_START =
  '<!-- settings-table: generated from packages/server/src/settings/schema.ts -->';
export const TABLE_END = '<!-- settings-table end -->';

/** docs/settings.md's table of the server's settings: variable, type, default, meaning. */
export function settingsTable(): string {
  const rows = Object.entries(SERVER_SETTINGS.properties).map(([name, property]) => {
    const schema = property as SettingSchema;
    return `| \`${name}\` | ${typeOf(schema)} | ${defaultOf(schema)} | ${cell(schema.description)} |`;
  });
  return ['| variable | type | default | meaning |', '| --- | --- | --- | --- |', ...rows].join(
    '\n',
  );
}

/**
 * `readme` with the text between the table's comments replaced by `table`; throws when the
 * comments are missing, so that the table cannot silently vanish.
 */
export function withSettingsTable(readme: string, table: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) {
    throw new Error(
      `docs/settings.md lacks the settings table's comments ${TABLE_START} ... ${TABLE_END}`,
    );
  }
  return `${readme.slice(0, start + TABLE_START.length)}\n\n${table.trim()}\n\n${readme.slice(end)}`;
}

function typeOf(schema: SettingSchema): string {
  if (schema.typeShown !== undefined) return schema.typeShown;
  switch (schema.type) {
    case 'boolean':
      return 'flag (`true`, `1`, `yes`, `on`)';
    case 'string':
      return 'text';
    case 'array':
      return 'comma-separated list';
    case 'integer': {
      const { minimum, maximum } = schema as SettingSchema & { minimum: number; maximum: number };
      return maximum >= 9_999_999_999
        ? `integer \u2265 ${minimum}`
        : `integer ${minimum}\u2013${maximum}`;
    }
    default: {
      const words = (schema.anyOf as { const: string }[] | undefined) ?? [];
      return words.map((w) => `\`${w.const}\``).join(' \\| ');
    }
  }
}

function defaultOf(schema: SettingSchema): string {
  if (schema.shown !== undefined) return cell(schema.shown);
  return schema.default === undefined ? 'none' : `\`${String(schema.default)}\``;
}

/** Text for a table cell: pipes escaped. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}
