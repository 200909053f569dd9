import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Most entries one size walk visits: a tree larger than this counts as over any cap. */
const MAX_WALK_ENTRIES = 200_000;

/**
 * The bytes a directory tree takes on disk, as `du` counts them (allocated blocks, so a sparse
 * file counts what it uses); `Infinity` past {@link MAX_WALK_ENTRIES} entries. Entries that
 * vanish during the walk are skipped.
 */
export async function diskUsage(root: string): Promise<number> {
  let total = 0;
  let visited = 0;
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (++visited > MAX_WALK_ENTRIES) return Infinity;
      const path = join(dir, name);
      try {
        const stat = await lstat(path);
        total += stat.blocks * 512;
        if (stat.isDirectory()) pending.push(path);
      } catch {
        // removed meanwhile
      }
    }
  }
  return total;
}

/** Makes a fresh directory (and its parents). */
export function makeDirectory(path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o700 });
}

/** Removes a tree; a missing one is fine. */
export function removeTree(path: string): void {
  rmSync(path, { recursive: true, force: true, maxRetries: 3 });
}

/**
 * Names of the entries of `dir` made by a process that is no longer running: the sandbox names
 * its groups and scratch directories `<pid>.<n>`. A missing `dir` has none.
 */
export function orphans(dir: string, alive: (pid: number) => boolean): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((name) => {
    const match = /^(\d+)\.\d+$/.exec(name);
    return match !== null && !alive(Number(match[1]));
  });
}

/** Whether a process with this pid runs (signal 0 is delivered or refused for permission). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
