import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string): unknown => JSON.parse(readFileSync(`${root}${file}`, 'utf8'));

interface Lock {
  packages: Record<string, { engines?: { node?: string } | string[] }>;
}

describe('the locked dependencies', () => {
  it('all run on the oldest Node.js the root package.json accepts (no EBADENGINE warning)', () => {
    const range = (read('package.json') as { engines: { node: string } }).engines.node;
    const oldest = semver.minVersion(range)!.version;
    const refusing = Object.entries((read('package-lock.json') as Lock).packages)
      .map(([path, entry]) => ({
        path,
        node: Array.isArray(entry.engines) ? undefined : entry.engines?.node,
      }))
      .filter(({ node }) => node !== undefined && !semver.satisfies(oldest, node));
    expect(refusing).toEqual([]);
  });
});
