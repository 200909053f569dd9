import semver from 'semver';
import { isWindowsDeviceName, PLUGIN_SLUG_PATTERN, SLUG_MAX_LENGTH } from '@weft/core';

const SLUG = new RegExp(PLUGIN_SLUG_PATTERN);

/**
 * Why a slug is refused, or undefined when it is fine. A Windows device name (`nul`, `com1`...)
 * is refused as the slug of a new definition; with `existing` (reading, deprecating or removing
 * what may have been published before that rule) it is let through.
 */
export function slugProblem(
  slug: string,
  options: { existing?: boolean } = {},
): { constraint: string; message: string } | undefined {
  if (slug.length > SLUG_MAX_LENGTH) {
    return {
      constraint: 'max_length',
      message: `slug is ${slug.length} characters; at most ${SLUG_MAX_LENGTH}`,
    };
  }
  if (slug.length < 2)
    return { constraint: 'min_length', message: 'slug needs at least 2 characters' };
  if (!options.existing && isWindowsDeviceName(slug)) {
    return {
      constraint: 'reserved',
      message: `slug "${slug}" is a Windows device name (con, prn, aux, nul, com0-com9, lpt0-lpt9), which cannot be a file name (plugins/${slug}.yaml): choose another`,
    };
  }
  if (SLUG.test(slug)) return undefined;
  if (/[/\\]|\.\./.test(slug)) {
    return { constraint: 'pattern', message: `slug "${slug}" contains path characters` };
  }
  if (slug !== slug.toLowerCase() && SLUG.test(slug.toLowerCase())) {
    return {
      constraint: 'pattern',
      message: `slug must be lower case: use "${slug.toLowerCase()}"`,
    };
  }
  return {
    constraint: 'pattern',
    message: `slug "${slug}" must be lower-case ASCII letters and digits with single - or _ between them`,
  };
}

/** The confusion key of a slug: two slugs with the same key differ only by `-`, `_` or `.`. */
export function slugKey(slug: string): string {
  return slug.replace(/[-_.]/g, '');
}

/** Why a version is refused, or undefined when it is a plain semantic version. */
export function versionProblem(
  version: string,
): { constraint: string; message: string } | undefined {
  if (version.length > 64)
    return { constraint: 'max_length', message: 'version is longer than 64 characters' };
  if (version.includes('+')) {
    return {
      constraint: 'semver',
      message: 'build metadata (+...) is not allowed in plugin versions',
    };
  }
  if (semver.valid(version) !== version) {
    return {
      constraint: 'semver',
      message: `"${version}" is not a semantic version such as 1.2.0`,
    };
  }
  return undefined;
}

const UNITS: Record<string, number> = {
  B: 1,
  KB: 1000,
  MB: 1000 ** 2,
  GB: 1000 ** 3,
  KIB: 1024,
  MIB: 1024 ** 2,
  GIB: 1024 ** 3,
};

/** `512MB` -> bytes; undefined when not a size. */
export function parseMemory(text: string): number | undefined {
  const match = /^([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]+)$/.exec(text.trim());
  const unit = match ? UNITS[match[2]!.toUpperCase()] : undefined;
  return match && unit !== undefined ? Number(match[1]) * unit : undefined;
}
