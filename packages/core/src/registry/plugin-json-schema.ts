import { ConnectorDefinition } from '../connector/definition.js';
import { jsonSchemaDocument, renderJsonSchemaDocument } from '../workflow/json-schema.js';
import { PluginDefinition } from './plugin-definition.js';

/** Where the committed JSON Schema of plugin and connector files is published. */
export const PLUGIN_SCHEMA_ID = 'https://weft.dev/schemas/plugin.schema.json';

/**
 * The JSON Schema (draft 2020-12) of a plugin file, for editors: a file with a `slug` is a plugin
 * definition (what `weft plugin publish` sends, {@link PluginDefinition}), and when it also has a
 * `connector` block it must load as a connector definition too; a file without a `slug` is a
 * bare connector definition (what `--plugins` directories load, {@link ConnectorDefinition}).
 * Both come from the TypeBox types the registry and the SDK check files with; as the SDK fills in
 * `${VAR}` before it checks a connector definition, a string with `${` passes its patterns. The committed copy
 * lives at `schemas/plugin.schema.json`; `npm run schema` rewrites it.
 */
export function pluginFileJsonSchema(): Record<string, unknown> {
  const { $defs, ...root } = jsonSchemaDocument(
    {
      $defs: { plugin: PluginDefinition, connector: withInterpolation(ConnectorDefinition) },
      description:
        'A plugin definition (with slug, docs/registry.md#plugin-definitions) or a connector definition (packages/sdk/CONNECTORS.md#definitions)',
      type: 'object',
      if: { required: ['slug'] },
      then: {
        allOf: [
          { $ref: '#/$defs/plugin' },
          { if: { required: ['connector'] }, then: { $ref: '#/$defs/connector' } },
        ],
      },
      else: { $ref: '#/$defs/connector' },
    },
    PLUGIN_SCHEMA_ID,
    'weft plugin or connector file',
  );
  return { ...root, $defs };
}

/** {@link pluginFileJsonSchema} as the exact text committed at `schemas/plugin.schema.json`. */
export function renderPluginJsonSchema(): string {
  return renderJsonSchemaDocument(pluginFileJsonSchema());
}

/**
 * `schema` as plain JSON whose string patterns also accept a value with `${`: the SDK fills in
 * `${VAR}` and `${VAR:-default}` (packages/sdk/CONNECTORS.md) before it checks the value.
 */
function withInterpolation(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema), (key, value: unknown) =>
    key === 'pattern' && typeof value === 'string' ? `(?:${value})|\\$\\{` : value,
  ) as unknown;
}
