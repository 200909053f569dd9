import { Type, type Static } from '@weft/core/typebox';
import { SemverString, Text } from '../workflow/common.js';
import { ConnectorBlock } from '../connector/definition.js';
import {
  HttpUrl,
  PluginAction,
  PluginEnvironmentVariable,
  PluginRuntime,
  PluginSignature,
  Slug,
  PLUGIN_SLUG_PATTERN,
} from './definition.js';

/** A tag: lower-case letters, digits and `-`, 1 to 32 characters. */
export const TAG_PATTERN = '^[a-z0-9][a-z0-9-]{0,31}$';

/**
 * What a publisher submits (docs/registry.md#plugin-definitions), as YAML or JSON: the required metadata, the actions
 * with their input and output JSON Schemas, the optional fields, the optional `signature` (docs/registry.md#checksums-and-signatures)
 * and the optional `connector` block (packages/sdk/CONNECTORS.md#definitions): with it, the same file loads as a connector
 * definition (`./plugins/<slug>.yaml`).
 */
export const PluginDefinition = Type.Object(
  {
    $schema: Type.Optional(Type.String({ description: 'JSON Schema of this file, for editors' })),
    slug: Slug('Unique plugin identifier'),
    version: SemverString('Semantic version of this release, e.g. 1.2.0'),
    name: Text('Human-readable name', 128),
    description: Text('What the plugin does', 2000),
    actions: Type.Array(PluginAction, {
      minItems: 1,
      maxItems: 500,
      description: 'At least one action',
    }),
    author: Text('Maintainer name or organisation', 200),
    homepage: HttpUrl('Documentation URL'),
    repository: HttpUrl('Source code URL'),
    license: Type.String({
      minLength: 1,
      maxLength: 128,
      pattern: '^[A-Za-z0-9.+\\-():]+( +[A-Za-z0-9.+\\-():]+)*$',
      description:
        'SPDX license identifier or expression (the SPDX license list), e.g. MIT, Apache-2.0 OR MIT, LicenseRef-acme',
      'x-expected':
        'an SPDX license identifier such as MIT, or an expression such as "Apache-2.0 OR MIT"',
    }),
    tags: Type.Array(
      Type.String({
        pattern: TAG_PATTERN,
        description: 'A searchable keyword',
        'x-expected': 'a tag: lower-case letters, digits and -, at most 32 characters',
      }),
      { maxItems: 20, uniqueItems: true, description: 'Searchable keywords' },
    ),
    icon: HttpUrl('Icon URL'),
    changelog: Type.Optional(Text('Release notes', 20000)),
    dependencies: Type.Optional(
      Type.Record(Type.String({ pattern: PLUGIN_SLUG_PATTERN }), Type.String({ maxLength: 256 }), {
        description: 'Other plugins required: slug -> semver range',
      }),
    ),
    compatibility: Type.Optional(
      Type.Object(
        {
          min_spec_version: Type.Optional(SemverString('Oldest workflow-spec version supported')),
          max_spec_version: Type.Optional(SemverString('Newest workflow-spec version supported')),
        },
        { additionalProperties: false },
      ),
    ),
    security: Type.Optional(HttpUrl('Security policy URL')),
    support: Type.Optional(Text('Support contact or URL', 512)),
    runtime: Type.Optional(PluginRuntime),
    environment: Type.Optional(Type.Array(PluginEnvironmentVariable, { maxItems: 100 })),
    connector: Type.Optional(ConnectorBlock),
    signature: Type.Optional(PluginSignature),
  },
  {
    additionalProperties: false,
    description: 'A plugin definition (docs/registry.md#plugin-definitions)',
  },
);
export type PluginDefinition = Static<typeof PluginDefinition>;
