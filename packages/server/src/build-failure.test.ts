import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildServer } from './build.js';

/**
 * A server that fails to build after its first phases opened things (the SQLite store and its
 * checkpoint thread, the HTTP app, telemetry, the broker) closes them before the error reaches
 * the caller: the process holds no file of its data directory open afterwards.
 */

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Files under `dir` this process has open (Linux: /proc/self/fd). */
function openFilesUnder(dir: string): string[] {
  const open: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(dir)) open.push(target);
    } catch {
      // closed between the listing and the read
    }
  }
  return open;
}

/** A data directory with an `agents` folder holding a definition that does not load. */
function dataDirWithBadAgent(): { dataDir: string; agentsDir: string } {
  const dataDir = mkdtempSync(join(tmpdir(), 'weft-build-failure-'));
  dirs.push(dataDir);
  const agentsDir = join(dataDir, 'agents');
  mkdirSync(agentsDir);
  writeFileSync(join(agentsDir, 'broken.yaml'), 'agent:\n  name: [not, a, name]\n');
  return { dataDir, agentsDir };
}

describe.skipIf(!existsSync('/proc/self/fd'))('a server whose build fails', () => {
  it('closes the store it opened when a later phase throws (a bad agent definition)', async () => {
    const { dataDir, agentsDir } = dataDirWithBadAgent();
    await expect(
      buildServer({ dataDir, agentsDir, logLevel: 'silent' }, { logger: false }),
    ).rejects.toThrow(/broken\.yaml/);
    expect(openFilesUnder(dataDir)).toEqual([]);
  });

  it('holds the store open while built, and closes it with the server', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'weft-build-failure-'));
    dirs.push(dataDir);
    const server = await buildServer({ dataDir, logLevel: 'silent' }, { logger: false });
    expect(openFilesUnder(dataDir)).not.toEqual([]);
    await server.close();
    expect(openFilesUnder(dataDir)).toEqual([]);
  });
});
