import { parse, stringify } from 'yaml';

/**
 * A JSON value as a YAML document (block style, keys in their order, long strings unfolded),
 * e.g. a deployed definition printed by `weft deployment get --yaml`.
 */
export function toYaml(value: unknown): string {
  return stringify(value, { lineWidth: 0, aliasDuplicateObjects: false });
}

/**
 * A small YAML (or JSON) document as a plain value, e.g. a file of run inputs. Aliases are
 * refused (no billion laughs); a syntax error throws with its line and column.
 */
export function fromYaml(text: string): unknown {
  return parse(text, { maxAliasCount: 0, prettyErrors: true });
}
