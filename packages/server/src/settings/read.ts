import { Value } from '@weft/core/typebox';
import { ValidationError } from '@weft/core';
import { SERVER_SETTINGS, type ServerSettings, type SettingSchema } from './schema.js';

/** True for `true`, `1`, `yes`, `on` (any case). */
export function envFlag(value: string | undefined): boolean {
  return value !== undefined && /^(true|1|yes|on)$/i.test(value.trim());
}

/**
 * Reads every setting of {@link SERVER_SETTINGS} from `env`: a variable's text becomes the
 * schema's type (a flag, an integer, a comma-separated list, one of some words, a text of some pattern) and is checked
 * against it. A value that does not fit stops the start with `VALIDATION` naming the variable
 * and what it must be: a server never runs on a setting it misread. Unset variables, and empty
 * ones except lists that mean "none", are left out.
 */
export function readServerSettings(
  env: Readonly<Record<string, string | undefined>>,
): ServerSettings {
  const settings: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(SERVER_SETTINGS.properties)) {
    const raw = env[name];
    if (raw === undefined) continue;
    const value = parse(name, property as SettingSchema, raw);
    if (value !== undefined) settings[name] = value;
  }
  return settings;
}

/** One variable's value, or undefined when its text counts as unset. */
function parse(name: string, schema: SettingSchema, raw: string): unknown {
  const text = raw.trim();
  switch (schema.type) {
    case 'boolean':
      return envFlag(raw);
    case 'string':
      if (raw === '' && schema.emptyIsValue !== true) return undefined;
      return checked(name, schema, raw, raw, 'pattern');
    case 'integer': {
      if (text === '') return undefined;
      const value = /^[0-9]+$/.test(text) ? Number(text) : Number.NaN;
      return checked(name, schema, value, raw, 'integer');
    }
    case 'array': {
      if (text === '' && schema.emptyIsValue !== true) return undefined;
      return text
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
    }
    default: {
      // One of some words (a union of literals), in any case.
      if (text === '') return undefined;
      return checked(name, schema, text.toLowerCase(), raw, 'enum');
    }
  }
}

function checked(
  name: string,
  schema: SettingSchema,
  value: unknown,
  raw: string,
  constraint: string,
): unknown {
  if (Value.Check(schema, value)) return value;
  const shown = constraint === 'integer' ? raw.trim() : raw;
  throw new ValidationError(
    `${name} must be ${schema.must ?? 'valid'}, not ${JSON.stringify(shown)}`,
    {
      field: name,
      constraint,
    },
  );
}
