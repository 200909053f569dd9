import semver from 'semver';
import type { VersionRecord } from '@weft/core';

/** Versions that can still be read (not removed), newest first. */
export function availableVersions(versions: readonly VersionRecord[]): VersionRecord[] {
  return versions
    .filter((v) => v.status !== 'removed')
    .sort((a, b) => semver.rcompare(a.version, b.version));
}

/**
 * The latest version: the highest non-removed, non-prerelease version; when only prereleases
 * remain, the highest of those; undefined when every version is removed.
 */
export function latestVersion(versions: readonly VersionRecord[]): string | undefined {
  const available = availableVersions(versions);
  const stable = available.find((v) => semver.prerelease(v.version) === null);
  return (stable ?? available[0])?.version;
}

/** The highest version ever published, removed ones included. */
export function highestVersion(versions: readonly VersionRecord[]): string | undefined {
  let highest: string | undefined;
  for (const v of versions)
    if (highest === undefined || semver.gt(v.version, highest)) highest = v.version;
  return highest;
}
