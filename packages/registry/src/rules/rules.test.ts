import { describe, expect, it } from 'vitest';
import type { VersionRecord } from '@weft/core';
import { TtlCache } from '../cache.js';
import { parseMemory, slugKey, slugProblem, versionProblem } from './names.js';
import { availableVersions, highestVersion, latestVersion } from './versions.js';

const version = (v: string, status: VersionRecord['status'] = 'published') =>
  ({ version: v, status }) as VersionRecord;

describe('registry naming rules', () => {
  it('accepts plain slugs and explains every refusal', () => {
    expect(slugProblem('slack')).toBeUndefined();
    expect(slugProblem('my_plugin-2')).toBeUndefined();
    expect(slugProblem('Slack')?.message).toContain('use "slack"');
    expect(slugProblem('a/b')?.message).toContain('path characters');
    expect(slugProblem('a'.repeat(65))?.constraint).toBe('max_length');
    expect(slugProblem('a--b')?.constraint).toBe('pattern');
  });

  it('makes slugs that differ only by - _ . confusable', () => {
    expect(slugKey('my-plugin')).toBe(slugKey('my_plugin'));
    expect(slugKey('my.plugin')).toBe(slugKey('myplugin'));
    expect(slugKey('my-plugin')).not.toBe(slugKey('my-plugins'));
  });

  it('accepts semantic versions only, without build metadata', () => {
    expect(versionProblem('1.2.3-rc.1')).toBeUndefined();
    expect(versionProblem('v1.2.3')?.constraint).toBe('semver');
    expect(versionProblem('1.2.3+abc')?.message).toContain('build metadata');
  });

  it('reads memory sizes with units', () => {
    expect(parseMemory('512MB')).toBe(512e6);
    expect(parseMemory('1GiB')).toBe(1024 ** 3);
    expect(parseMemory('lots')).toBeUndefined();
  });
});

describe('versions', () => {
  it('picks the highest non-removed stable version as latest', () => {
    const all = [
      version('1.0.0'),
      version('2.0.0', 'removed'),
      version('1.5.0', 'deprecated'),
      version('3.0.0-beta.1'),
    ];
    expect(latestVersion(all)).toBe('1.5.0');
    expect(availableVersions(all).map((v) => v.version)).toEqual([
      '3.0.0-beta.1',
      '1.5.0',
      '1.0.0',
    ]);
    expect(highestVersion(all)).toBe('3.0.0-beta.1');
  });

  it('falls back to the highest prerelease, then to nothing', () => {
    expect(latestVersion([version('1.0.0-alpha'), version('1.0.0-beta')])).toBe('1.0.0-beta');
    expect(latestVersion([version('1.0.0', 'removed')])).toBeUndefined();
  });
});

describe('TtlCache', () => {
  it('expires entries, evicts the oldest when full, and clears', () => {
    let now = 0;
    const cache = new TtlCache<string>(100, 2, () => now);
    cache.set('a', '1');
    cache.set('b', '2');
    cache.set('c', '3');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('c')).toBe('3');
    now = 100;
    expect(cache.get('c')).toBeUndefined();
    cache.set('d', '4');
    cache.clear();
    expect(cache.get('d')).toBeUndefined();
  });

  it('caches nothing with a zero time to live', () => {
    const cache = new TtlCache<string>(0, 10, () => 0);
    cache.set('a', '1');
    expect(cache.get('a')).toBeUndefined();
  });
});
