import semver from 'semver';
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  ValidationError,
  type Decision,
  type NewVersion,
  type PluginState,
  type Principal,
  type UnpublishCondition,
} from '@weft/core';
import { comparedVersion, requireBreakingStep, type VersionDiff } from './breaking.js';
import { availableVersions, highestVersion, latestVersion } from './versions.js';

/** What every write decision knows. */
export interface WriteContext {
  principal: Principal;
  at: string;
  dryRun: boolean;
}

/** Decides a first publication (POST): the slug must be new and not confusable with another. */
export function decidePublish(
  state: PluginState | undefined,
  confusableWith: string | undefined,
  slug: string,
  slugKey: string,
  version: NewVersion,
  context: WriteContext,
): Decision<void> {
  if (state) {
    throw new ConflictError(
      `plugin ${slug} already exists; publish a new version with PUT /plugins/${slug} (weft plugin publish --update)`,
      {
        slug,
        constraint: 'exists',
      },
    );
  }
  if (confusableWith !== undefined) {
    throw new ConflictError(
      `slug ${slug} is too close to the existing plugin ${confusableWith} (they differ only by -, _ or .); choose another slug`,
      {
        slug,
        constraint: 'confusable',
        conflicts_with: confusableWith,
      },
    );
  }
  return {
    change: context.dryRun
      ? { kind: 'none' }
      : {
          kind: 'create',
          owner: context.principal.owner,
          slug_key: slugKey,
          at: context.at,
          version,
        },
    result: undefined,
  };
}

/**
 * Decides an update (PUT): owner only, version strictly above every version ever published, and
 * a major version (a minor below 1.0) when `diff` (the new plugin definition compared with the
 * highest stable version, read before the transaction) lists breaking changes.
 */
export function decideUpdate(
  state: PluginState | undefined,
  slug: string,
  version: NewVersion,
  context: WriteContext & { diff?: VersionDiff | undefined },
): Decision<{ previous: string }> {
  const plugin = requireOwned(state, slug, context.principal.owner);
  if (plugin.plugin.kind !== version.kind) {
    throw new ConflictError(
      `${slug} holds ${plugin.plugin.kind === 'agent' ? 'an agent' : 'a plugin'} definition; a version of it must be one too`,
      { field: 'kind', constraint: 'same_kind', kind: plugin.plugin.kind },
    );
  }
  const previous = highestVersion(plugin.versions) ?? '0.0.0';
  const existing = plugin.versions.find((v) => v.version === version.version);
  if (existing?.status === 'removed') {
    throw new ConflictError(
      `${slug}@${version.version} was removed and can never be published again; use a higher version`,
      {
        field: 'version',
        constraint: 'removed',
        version: version.version,
        previous_version: previous,
      },
    );
  }
  if (!semver.gt(version.version, previous)) {
    throw new ConflictError(
      `version ${version.version} is not above ${previous}, the highest version of ${slug} ever published; increment it`,
      {
        field: 'version',
        constraint: 'incremented',
        version: version.version,
        previous_version: previous,
      },
    );
  }
  if (version.kind === 'plugin' && context.diff) {
    // Another update may have landed between the comparison and this transaction.
    const against = comparedVersion(plugin.versions);
    if (against !== context.diff.against) {
      throw new ConflictError(
        `${slug} changed while this update was checked (now at ${against ?? 'no stable version'}); send it again`,
        { field: 'version', constraint: 'concurrent_update', previous_version: previous },
      );
    }
    requireBreakingStep(slug, version.version, context.diff);
  }
  const latest = latestVersion([...plugin.versions, { ...stub(slug, version.version) }]) ?? null;
  return {
    change: context.dryRun
      ? { kind: 'none' }
      : { kind: 'add_version', at: context.at, version, latest },
    result: { previous },
  };
}

/** Decides a deprecation: owner only; the version and any replacement must be available. */
export function decideDeprecate(
  state: PluginState | undefined,
  slug: string,
  version: string,
  reason: string,
  replacement: string | null,
  context: WriteContext,
): Decision<void> {
  const plugin = requireOwned(state, slug, context.principal.owner);
  requireAvailable(plugin, slug, version);
  if (replacement !== null) {
    if (replacement === version) {
      throw new ValidationError('replacement_version must be another version', {
        field: 'replacement_version',
        constraint: 'different',
      });
    }
    if (!availableVersions(plugin.versions).some((v) => v.version === replacement)) {
      throw new ValidationError(
        `replacement_version ${replacement} is not an available version of ${slug}`,
        {
          field: 'replacement_version',
          constraint: 'exists',
        },
      );
    }
  }
  return {
    change: {
      kind: 'deprecate',
      at: context.at,
      version,
      reason,
      replacement_version: replacement,
    },
    result: undefined,
  };
}

/**
 * Decides an unpublish (docs/registry.md#version-states): the version must be deprecated, within the window after
 * publication and used by no active workflow; every unmet condition is listed in `details.unmet`.
 */
export function decideRemove(
  state: PluginState | undefined,
  slug: string,
  version: string,
  context: WriteContext & { nowMs: number; windowMs: number; usedBy: string[] },
): Decision<void> {
  const plugin = requireOwned(state, slug, context.principal.owner);
  const record = requireAvailable(plugin, slug, version);
  const unmet: UnpublishCondition[] = [];
  if (record.status !== 'deprecated') unmet.push('not_deprecated');
  if (context.nowMs - Date.parse(record.published_at) > context.windowMs)
    unmet.push('window_expired');
  if (context.usedBy.length > 0) unmet.push('in_use');
  if (unmet.length > 0) {
    const hours = Math.round(context.windowMs / 3_600_000);
    throw new ConflictError(
      `${slug}@${version} cannot be unpublished: ${unmet.join(', ')} (a version must be deprecated first, within ${hours} hours of publication, and used by no active workflow)`,
      {
        slug,
        version,
        unmet,
        ...(context.usedBy.length > 0 ? { workflows: context.usedBy } : {}),
      },
    );
  }
  const rest = plugin.versions.filter((v) => v.version !== version);
  return {
    change: { kind: 'remove', at: context.at, version, latest: latestVersion(rest) ?? null },
    result: undefined,
  };
}

function requireOwned(state: PluginState | undefined, slug: string, owner: string): PluginState {
  if (!state)
    throw new NotFoundError(`no plugin ${slug}; publish it first with POST /plugins`, { slug });
  if (state.plugin.owner !== owner) {
    throw new ForbiddenError(
      `plugin ${slug} belongs to ${state.plugin.owner}; only its owner's keys may change it`,
      {
        slug,
        owner: state.plugin.owner,
      },
    );
  }
  return state;
}

function requireAvailable(plugin: PluginState, slug: string, version: string) {
  const record = plugin.versions.find((v) => v.version === version);
  if (!record || record.status === 'removed') {
    throw new NotFoundError(`${slug}@${version} ${record ? 'was removed' : 'does not exist'}`, {
      slug,
      version,
      available: availableVersions(plugin.versions).map((v) => v.version),
    });
  }
  return record;
}

function stub(slug: string, version: string) {
  return {
    slug,
    version,
    status: 'published' as const,
    published_at: '',
    checksum: '',
    content_type: '',
    signature_key_id: null,
    deprecated_reason: null,
    replacement_version: null,
    deprecated_at: null,
    removed_at: null,
    downloads: 0,
  };
}
