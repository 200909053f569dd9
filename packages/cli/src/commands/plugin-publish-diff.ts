import { WeftError } from '@weft/core';

/** One change between two versions, as the registry lists it (docs/registry.md#what-is-breaking). */
export interface VersionChange {
  action: string;
  path: string;
  change: string;
}

/** The diff a dry-run update answers: `breaks` and `compatible` changes against `against`. */
export interface VersionDiff {
  against: string;
  required_version: string;
  breaks: VersionChange[];
  compatible: VersionChange[];
}

/**
 * The lines of a diff against the published version: a heading, then `! ` before each breaking
 * change and `+ ` before each compatible one.
 */
export function formatDiff(diff: VersionDiff): string {
  const breaking =
    diff.breaks.length > 0
      ? `${diff.breaks.length} breaking, needs ${diff.required_version} or above`
      : 'none breaking';
  const lines = [`  changes against ${diff.against} (${breaking}):`];
  if (diff.breaks.length + diff.compatible.length === 0) lines.push('    (no change to actions)');
  for (const change of diff.breaks) lines.push(`    ! ${describe(change)}`);
  for (const change of diff.compatible) lines.push(`    + ${describe(change)}`);
  return `${lines.join('\n')}\n`;
}

/**
 * The diff of a refusal with constraint `breaking_change_needs_major` (409), or undefined for
 * any other error.
 */
export function diffOfRefusal(error: unknown): VersionDiff | undefined {
  if (!(error instanceof WeftError)) return undefined;
  const details = error.details as Partial<VersionDiff> & {
    constraint?: string;
    previous_version?: string;
  };
  if (details.constraint !== 'breaking_change_needs_major') return undefined;
  return {
    against: details.previous_version ?? '?',
    required_version: details.required_version ?? '?',
    breaks: details.breaks ?? [],
    compatible: details.compatible ?? [],
  };
}

/** `action get removed`, or `get: input.properties.id removed`. */
function describe(change: VersionChange): string {
  return change.path === 'action'
    ? `action ${change.action} ${change.change}`
    : `${change.action}: ${change.path} ${change.change}`;
}
