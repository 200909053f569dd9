import { Type, type Static } from '@weft/core/typebox';
import { ConnectorAction } from '../connector/definition.js';
import { Text } from '../workflow/common.js';

/**
 * Plugin slugs: lower-case ASCII letters and digits, with single `-` or `_` between them, 2 to 64
 * characters; a subset of the slugs a workflow step may name. No path characters, no dots, no
 * upper case, nothing outside ASCII.
 */
export const PLUGIN_SLUG_PATTERN = '^[a-z0-9]+(?:[-_][a-z0-9]+)*$';
/** Longest plugin slug. */
export const SLUG_MAX_LENGTH = 64;

/**
 * Names Windows reserves for devices whatever the extension (`nul.yaml` is the device `nul`):
 * a slug is a file name (`plugins/<slug>.yaml`), so none of these may be one. `com0` and `lpt0`
 * are included: some Windows versions reserve them too.
 */
export const WINDOWS_DEVICE_NAMES: ReadonlySet<string> = new Set([
  'con',
  'prn',
  'aux',
  'nul',
  ...Array.from({ length: 10 }, (_, i) => `com${i}`),
  ...Array.from({ length: 10 }, (_, i) => `lpt${i}`),
]);

/** True when `slug` is a Windows device name (see {@link WINDOWS_DEVICE_NAMES}), any case. */
export function isWindowsDeviceName(slug: string): boolean {
  return WINDOWS_DEVICE_NAMES.has(slug.toLowerCase());
}

/** A plugin slug (see {@link PLUGIN_SLUG_PATTERN}). */
export const Slug = (description: string) =>
  Type.String({
    minLength: 2,
    maxLength: SLUG_MAX_LENGTH,
    pattern: PLUGIN_SLUG_PATTERN,
    description,
    'x-expected': 'a slug: 2 to 64 lower-case letters and digits, with single - or _ between them',
  });

/** An `http(s)://` URL. */
export const HttpUrl = (description: string) =>
  Type.String({
    maxLength: 2048,
    pattern: '^https?://[^\\s]+$',
    description,
    'x-expected': 'an http:// or https:// URL',
  });

/**
 * One action of a plugin: the connector action (packages/sdk/CONNECTORS.md#definitions) (so an installed definition loads
 * as a connector file), with the `description` that the registry detail (docs/registry.md#plugin-detail) requires.
 */
export const PluginAction = Type.Object(
  {
    ...ConnectorAction.properties,
    description: Text('What the action does', 2000),
  },
  { additionalProperties: false, description: 'A plugin action' },
);
export type PluginAction = Static<typeof PluginAction>;

/** Runtime needs of a plugin (docs/registry.md#plugin-detail, limits: docs/protocol.md#limits). */
export const PluginRuntime = Type.Object(
  {
    memory: Type.Optional(
      Type.String({
        pattern: '^[0-9]+(\\.[0-9]+)?\\s*(B|KB|MB|GB|KiB|MiB|GiB)$',
        description: 'Memory with a unit, e.g. 512MB (at most 4GB)',
        'x-expected': 'a size such as 256MB or 1GB',
      }),
    ),
    timeout: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 600, description: 'Timeout in seconds (1 to 600)' }),
    ),
  },
  { additionalProperties: false },
);
export type PluginRuntime = Static<typeof PluginRuntime>;

/** An environment variable a plugin needs (docs/registry.md#plugin-detail). */
export const PluginEnvironmentVariable = Type.Object(
  {
    name: Type.String({
      pattern: '^[A-Za-z_][A-Za-z0-9_]{0,127}$',
      description: 'Variable name',
      'x-expected': 'an environment variable name such as SLACK_TOKEN',
    }),
    description: Text('What the variable holds', 2000),
    required: Type.Boolean({ description: 'Whether the plugin fails without it' }),
    secret: Type.Optional(
      Type.Boolean({
        description:
          'Whether its value is a secret (default true): a run that calls the plugin masks the value as *** in everything it records. false for settings that are not secret, such as a base URL',
      }),
    ),
  },
  { additionalProperties: false },
);
export type PluginEnvironmentVariable = Static<typeof PluginEnvironmentVariable>;

/** The optional GPG signature block (docs/registry.md#checksums-and-signatures). */
export const PluginSignature = Type.Object(
  {
    type: Type.Literal('gpg'),
    key_id: Type.String({
      pattern: '^(0x)?([0-9A-Fa-f]{16}|[0-9A-Fa-f]{40}|[0-9A-Fa-f]{64})$',
      description: 'Key id (16 hex digits) or fingerprint of the signing key',
      'x-expected': 'a key id of 16 hex digits or a 40 hex digit fingerprint',
    }),
    signature: Type.String({
      minLength: 1,
      maxLength: 16384,
      description:
        'Armored detached signature of the RFC 8785 canonical JSON of the definition without its signature key',
    }),
  },
  { additionalProperties: false },
);
export type PluginSignature = Static<typeof PluginSignature>;
