import { Type, type Static } from '@weft/core/typebox';
import { PluginAction, PluginEnvironmentVariable } from './definition.js';

/** `plugin`, or `agent` for a published agent definition (docs/agents.md#publishing). */
export const PluginKindSchema = Type.Union([Type.Literal('plugin'), Type.Literal('agent')], {
  description: 'plugin, or agent for a published agent definition',
});

const Timestamp = (description: string) =>
  Type.String({ format: 'date-time', description: `${description} (ISO 8601 UTC)` });

/** Plugin summary, one element of search results (docs/registry.md#plugin-summary). */
export const PluginSummary = Type.Object({
  slug: Type.String(),
  kind: PluginKindSchema,
  name: Type.String(),
  description: Type.String(),
  version: Type.String({ description: 'Latest version' }),
  author: Type.String(),
  tags: Type.Array(Type.String()),
  downloads: Type.Integer(),
  created_at: Timestamp('First publication'),
  updated_at: Timestamp('Last change'),
});
export type PluginSummary = Static<typeof PluginSummary>;

/** Answer of `GET /plugins/search`. */
export const SearchResponse = Type.Object({
  total: Type.Integer({ description: 'Number of all matches, not only this page' }),
  results: Type.Array(PluginSummary),
});
export type SearchResponse = Static<typeof SearchResponse>;

/** How a deprecated version was deprecated. */
export const Deprecation = Type.Object({
  reason: Type.String(),
  replacement_version: Type.Union([Type.String(), Type.Null()]),
  deprecated_at: Timestamp('When it was deprecated'),
});
export type Deprecation = Static<typeof Deprecation>;

/** Plugin detail (docs/registry.md#plugin-detail) plus the verification data (docs/registry.md#checksums-and-signatures). */
export const PluginDetail = Type.Object({
  slug: Type.String(),
  kind: PluginKindSchema,
  version: Type.String({ description: 'The version returned' }),
  name: Type.String(),
  description: Type.String(),
  author: Type.String(),
  homepage: Type.String(),
  repository: Type.String(),
  license: Type.String(),
  icon: Type.String(),
  tags: Type.Array(Type.String()),
  actions: Type.Array(PluginAction),
  runtime: Type.Object({ memory: Type.String(), timeout: Type.Integer() }),
  environment: Type.Array(PluginEnvironmentVariable),
  versions: Type.Array(Type.String(), { description: 'All available versions, newest first' }),
  latest_version: Type.String(),
  downloads: Type.Integer({ description: 'Downloads of all versions' }),
  created_at: Timestamp('First publication of the plugin'),
  updated_at: Timestamp('Last change of the plugin'),
  published_at: Timestamp('Publication of this version'),
  schema_url: Type.String({ description: 'Absolute URL of this version’s definition' }),
  checksum: Type.String({ description: 'sha256:<hex> of the bytes served at schema_url' }),
  status: Type.Union([Type.Literal('published'), Type.Literal('deprecated')]),
  deprecation: Type.Union([Deprecation, Type.Null()]),
  signed: Type.Boolean({ description: 'Whether this version carries a verified signature' }),
  signature_key_id: Type.Union([Type.String(), Type.Null()]),
  owner: Type.String({ description: 'Owner of the slug' }),
  changelog: Type.Optional(Type.String()),
  dependencies: Type.Optional(Type.Record(Type.String(), Type.String())),
  compatibility: Type.Optional(
    Type.Object({
      min_spec_version: Type.Optional(Type.String()),
      max_spec_version: Type.Optional(Type.String()),
    }),
  ),
  security: Type.Optional(Type.String()),
  support: Type.Optional(Type.String()),
  agent: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), {
      description:
        'kind agent: the agent definition of this version (docs/agents.md#publishing); actions is empty',
    }),
  ),
  ref: Type.Optional(
    Type.String({ description: 'kind agent: how a workflow names it, agent:<namespace>/<name>' }),
  ),
});
export type PluginDetail = Static<typeof PluginDetail>;

/** Answer of `POST /plugins` (201). */
export const PublishResponse = Type.Object({
  status: Type.Literal('published'),
  slug: Type.String(),
  version: Type.String(),
  url: Type.String({ description: 'Absolute URL of the plugin' }),
  checksum: Type.String(),
  dry_run: Type.Optional(Type.Boolean()),
});
export type PublishResponse = Static<typeof PublishResponse>;

/** Answer of `PUT /plugins/{slug}`. */
export const UpdateResponse = Type.Object({
  status: Type.Literal('updated'),
  slug: Type.String(),
  version: Type.String(),
  previous_version: Type.String(),
  url: Type.String(),
  checksum: Type.String(),
  dry_run: Type.Optional(Type.Boolean()),
});
export type UpdateResponse = Static<typeof UpdateResponse>;

/** Body of `POST /plugins/{slug}/{version}/deprecate`. */
export const DeprecateRequest = Type.Object(
  {
    reason: Type.String({ minLength: 1, maxLength: 2000 }),
    replacement_version: Type.Optional(Type.Union([Type.String({ maxLength: 256 }), Type.Null()])),
  },
  { additionalProperties: false },
);
export type DeprecateRequest = Static<typeof DeprecateRequest>;

/** Answer of a deprecation (docs/design.md#registry). */
export const DeprecateResponse = Type.Object({
  status: Type.Literal('deprecated'),
  slug: Type.String(),
  version: Type.String(),
  reason: Type.String(),
  replacement_version: Type.Union([Type.String(), Type.Null()]),
});
export type DeprecateResponse = Static<typeof DeprecateResponse>;

/** Answer of an unpublish (docs/design.md#registry). */
export const RemoveResponse = Type.Object({
  status: Type.Literal('removed'),
  slug: Type.String(),
  version: Type.String(),
});
export type RemoveResponse = Static<typeof RemoveResponse>;

/** The conditions an unpublish can fail on, listed in `details.unmet`. */
export const UNPUBLISH_CONDITIONS = ['not_deprecated', 'window_expired', 'in_use'] as const;
/** One of {@link UNPUBLISH_CONDITIONS}. */
export type UnpublishCondition = (typeof UNPUBLISH_CONDITIONS)[number];

/** Answer of `GET /plugins/{slug}/analytics`: downloads per version and per day. */
export const AnalyticsResponse = Type.Object({
  slug: Type.String(),
  downloads: Type.Integer({ description: 'All downloads of all versions' }),
  versions: Type.Array(Type.Object({ version: Type.String(), downloads: Type.Integer() })),
  days: Type.Array(
    Type.Object({
      date: Type.String({ description: 'YYYY-MM-DD (UTC)' }),
      version: Type.String(),
      downloads: Type.Integer(),
    }),
  ),
});
export type AnalyticsResponse = Static<typeof AnalyticsResponse>;

/** The health answer (docs/protocol.md#health). */
export const HealthResponse = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('unhealthy')]),
  version: Type.String(),
  checks: Type.Record(Type.String(), Type.String()),
});
export type HealthResponse = Static<typeof HealthResponse>;
