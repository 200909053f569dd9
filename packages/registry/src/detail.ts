import {
  NotFoundError,
  ValidationError,
  type PluginDetail,
  type PluginState,
  type StoredDefinition,
  type VersionRecord,
} from '@weft/core';
import { agentRefOf, type AgentSummary } from './agent-kind.js';
import { versionProblem } from './rules/names.js';
import { availableVersions, latestVersion } from './rules/versions.js';

/** Runtime defaults (docs/protocol.md#limits) shown when a plugin declares none. */
const DEFAULT_RUNTIME = { memory: '512MB', timeout: 120 };

/** Picks the version a detail or download shows: the one asked for, or the latest. */
export function pickVersion(
  state: PluginState,
  slug: string,
  asked: string | undefined,
): VersionRecord {
  if (asked !== undefined) {
    const problem = versionProblem(asked);
    if (problem)
      throw new ValidationError(problem.message, {
        field: 'version',
        constraint: problem.constraint,
      });
  }
  const wanted = asked ?? latestVersion(state.versions);
  const record = state.versions.find((v) => v.version === wanted);
  if (!record || record.status === 'removed') {
    const what =
      asked === undefined
        ? `${slug} has no available version`
        : `${slug}@${asked} ${record ? 'was removed' : 'does not exist'}`;
    throw new NotFoundError(what, {
      slug,
      ...(asked !== undefined ? { version: asked } : {}),
      available: availableVersions(state.versions).map((v) => v.version),
    });
  }
  return record;
}

/** Builds the detail (docs/registry.md#plugin-detail) of one version. */
export function buildDetail(
  state: PluginState,
  record: VersionRecord,
  definition: StoredDefinition,
  baseUrl: string,
): PluginDetail {
  const { plugin } = state;
  const slug = plugin.slug;
  return {
    slug,
    kind: plugin.kind,
    version: record.version,
    name: definition.name,
    description: definition.description,
    author: definition.author,
    homepage: definition.homepage,
    repository: definition.repository,
    license: definition.license,
    icon: definition.icon,
    tags: definition.tags,
    actions: definition.actions,
    runtime: {
      memory: definition.runtime?.memory ?? DEFAULT_RUNTIME.memory,
      timeout: definition.runtime?.timeout ?? DEFAULT_RUNTIME.timeout,
    },
    environment: definition.environment ?? [],
    versions: availableVersions(state.versions).map((v) => v.version),
    latest_version: plugin.listing?.latest_version ?? record.version,
    downloads: plugin.downloads,
    created_at: plugin.created_at,
    updated_at: plugin.updated_at,
    published_at: record.published_at,
    schema_url: `${baseUrl}/plugins/${slug}/${record.version}/schema`,
    checksum: record.checksum,
    status: record.status === 'deprecated' ? 'deprecated' : 'published',
    deprecation:
      record.status === 'deprecated'
        ? {
            reason: record.deprecated_reason ?? '',
            replacement_version: record.replacement_version,
            deprecated_at: record.deprecated_at ?? '',
          }
        : null,
    signed: record.signature_key_id !== null,
    signature_key_id: record.signature_key_id,
    owner: plugin.owner,
    ...optional(definition),
    ...(plugin.kind === 'agent' && definition.agent
      ? { agent: definition.agent, ref: agentRefOf(definition.agent as AgentSummary) }
      : {}),
  };
}

function optional(definition: StoredDefinition) {
  const { changelog, dependencies, compatibility, security, support } = definition;
  return Object.fromEntries(
    Object.entries({ changelog, dependencies, compatibility, security, support }).filter(
      ([, v]) => v !== undefined,
    ),
  );
}
