import semver from 'semver';
import { ConflictError, type StoredDefinition, type VersionRecord } from '@weft/core';
import { diffActions, type ChangeLists, type SchemaChange } from './schema-diff.js';

export type { SchemaChange } from './schema-diff.js';

/** A new definition compared with a published one (docs/registry.md#what-is-breaking). */
export interface VersionDiff extends ChangeLists {
  /** The published version compared with. */
  against: string;
  /** The lowest version the new one may carry: a major above `against` when anything breaks. */
  required_version: string;
}

/**
 * The version an update is compared with: the highest stable version not removed (deprecated
 * ones count: callers may still use them). Undefined when there is none: prereleases promise
 * nothing, so a plugin with only prereleases may change freely.
 */
export function comparedVersion(versions: readonly VersionRecord[]): string | undefined {
  let highest: string | undefined;
  for (const v of versions) {
    if (v.status === 'removed' || semver.prerelease(v.version) !== null) continue;
    if (highest === undefined || semver.gt(v.version, highest)) highest = v.version;
  }
  return highest;
}

/**
 * Compares the actions of two definitions with the rules of `@weft/core`'s `diffActions`
 * (an action removed breaks, one added is compatible, the schemas of the others compared), and
 * gives the version the new one needs.
 */
export function diffDefinitions(
  against: string,
  old: StoredDefinition,
  next: StoredDefinition,
): VersionDiff {
  const out = diffActions(old.actions ?? [], next.actions ?? []);
  const required =
    out.breaks.length > 0 ? nextBreakingVersion(against) : semver.inc(against, 'patch')!;
  return { against, required_version: required, ...out };
}

/** The version a breaking change needs after `version`: the next major, the next minor below 1.0. */
export function nextBreakingVersion(version: string): string {
  return semver.major(version) === 0
    ? `0.${semver.minor(version) + 1}.0`
    : `${semver.major(version) + 1}.0.0`;
}

/** Whether `version` is a breaking step from `against`: a higher major, a higher minor below 1.0. */
export function isBreakingStep(against: string, version: string): boolean {
  const major = semver.major(version);
  if (major !== semver.major(against)) return major > semver.major(against);
  return major === 0 && semver.minor(version) > semver.minor(against);
}

/**
 * Refuses an update whose changes break callers of `diff.against` when its version is not a
 * breaking step (409 CONFLICT, constraint `breaking_change_needs_major`, the breaks listed).
 */
export function requireBreakingStep(slug: string, version: string, diff: VersionDiff): void {
  if (diff.breaks.length === 0 || isBreakingStep(diff.against, version)) return;
  const list = diff.breaks.map(describeChange);
  const shown =
    list.slice(0, 5).join('; ') + (list.length > 5 ? `; and ${list.length - 5} more` : '');
  throw new ConflictError(
    `${slug}@${version} breaks callers of ${diff.against}: ${shown}; publish it as ${diff.required_version} (a ${semver.major(diff.against) === 0 ? 'minor below 1.0' : 'major'} version) or keep the old shape`,
    {
      field: 'version',
      constraint: 'breaking_change_needs_major',
      version,
      previous_version: diff.against,
      required_version: diff.required_version,
      breaks: diff.breaks,
      compatible: diff.compatible,
    },
  );
}

/** `get: input.properties.id removed`. */
export function describeChange(change: SchemaChange): string {
  return change.path === 'action'
    ? `action ${change.action} ${change.change}`
    : `${change.action}: ${change.path} ${change.change}`;
}
