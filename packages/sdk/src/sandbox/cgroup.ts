import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Controller, ControllerPlace } from './cgroup-discovery.js';

/** The CPU period the quota is written over: 100 ms. */
export const CPU_PERIOD_US = 100_000;

/** What a group's limits are, as the files take them. */
export interface GroupLimits {
  readonly memoryBytes: number;
  readonly cpuCores: number;
  readonly maxProcesses: number | undefined;
  /** Bytes per second on `device` (`major:minor`), when both are known. */
  readonly diskBytesPerSecond: number;
  readonly device: string | undefined;
}

/** What a group saw while its processes ran. */
export interface GroupStats {
  /** Processes the OOM killer killed in the group. */
  readonly oomKills: number;
  /** The most memory the group used, in bytes, where the kernel tells. */
  readonly memoryPeak: number | undefined;
  /** Forks refused because the group was at `pids.max`. */
  readonly pidsRefused: number;
  /** The most tasks the group held, where the kernel tells. */
  readonly pidsPeak: number | undefined;
}

/**
 * One control group made for one action process, in every hierarchy that holds a controller
 * the sandbox uses (v1: one directory per controller; v2: one directory for all).
 */
export class Cgroup {
  private constructor(
    private readonly places: ReadonlyMap<Controller, ControllerPlace>,
    private readonly dirs: ReadonlyMap<Controller, string>,
  ) {}

  /**
   * Makes the group `name` under each controller's parent and writes the limits. Throws the
   * file system's error when a directory or file cannot be written (after removing what it made).
   */
  static create(
    places: ReadonlyMap<Controller, ControllerPlace>,
    name: string,
    limits: GroupLimits,
  ): Cgroup {
    const dirs = new Map<Controller, string>();
    for (const [controller, place] of places) dirs.set(controller, join(place.parent, name));
    const group = new Cgroup(places, dirs);
    try {
      for (const dir of group.directories()) mkdirSync(dir);
      for (const [controller, place] of places) {
        writeLimits(controller, place.version, dirs.get(controller)!, limits);
      }
    } catch (error) {
      group.removeNow();
      throw error;
    }
    return group;
  }

  /** The group `name` that exists already under each parent (one a dead process left). */
  static adopt(places: ReadonlyMap<Controller, ControllerPlace>, name: string): Cgroup {
    const dirs = new Map<Controller, string>();
    for (const [controller, place] of places) dirs.set(controller, join(place.parent, name));
    return new Cgroup(places, dirs);
  }

  /** The `cgroup.procs` files a process writes its pid to, to join the group everywhere. */
  procsFiles(): string[] {
    return this.directories().map((dir) => join(dir, 'cgroup.procs'));
  }

  /** Reads the events and peaks of the group's controllers. */
  stats(): GroupStats {
    const memory = this.dirs.get('memory');
    const pids = this.dirs.get('pids');
    const v2 = this.places.get('memory')?.version === 2;
    const memoryEvents = memory
      ? read(join(memory, v2 ? 'memory.events' : 'memory.oom_control'))
      : '';
    return {
      oomKills: keyed(memoryEvents, 'oom_kill'),
      memoryPeak: memory
        ? number(read(join(memory, v2 ? 'memory.peak' : 'memory.max_usage_in_bytes')))
        : undefined,
      pidsRefused: pids ? keyed(read(join(pids, 'pids.events')), 'max') : 0,
      pidsPeak: pids ? number(read(join(pids, 'pids.peak'))) : undefined,
    };
  }

  /** The pids of the processes still in the group. */
  members(): number[] {
    const pids = new Set<number>();
    for (const dir of this.directories()) {
      for (const line of read(join(dir, 'cgroup.procs')).split('\n')) {
        const pid = Number(line);
        if (Number.isInteger(pid) && pid > 0) pids.add(pid);
      }
    }
    return [...pids];
  }

  /** Kills every process in the group (`cgroup.kill` on v2, else each pid) and removes it. */
  async remove(): Promise<void> {
    for (let round = 0; round < 100; round++) {
      this.killAll();
      if (this.removeNow()) return;
      await sleep(round < 10 ? 2 : 20);
    }
    throw new Error(`cannot remove the control group ${this.directories().join(', ')}: still busy`);
  }

  /** Sends SIGKILL to every member. */
  killAll(): void {
    for (const dir of this.directories()) {
      if (existsSync(join(dir, 'cgroup.kill'))) tryWrite(join(dir, 'cgroup.kill'), '1');
    }
    for (const pid of this.members()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
  }

  /** Removes the directories that are empty; true when none is left. */
  private removeNow(): boolean {
    let left = false;
    for (const dir of this.directories()) {
      try {
        rmdirSync(dir);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') left = true;
      }
    }
    return !left;
  }

  private directories(): string[] {
    return [...new Set(this.dirs.values())];
  }
}

function writeLimits(controller: Controller, version: 1 | 2, dir: string, limits: GroupLimits) {
  const file = (name: string) => join(dir, name);
  switch (controller) {
    case 'memory': {
      const bytes = String(Math.floor(limits.memoryBytes));
      if (version === 2) {
        writeFileSync(file('memory.max'), bytes);
        if (existsSync(file('memory.swap.max'))) writeFileSync(file('memory.swap.max'), '0');
      } else {
        writeFileSync(file('memory.limit_in_bytes'), bytes);
        // memory + swap at the memory limit: no swap.
        if (existsSync(file('memory.memsw.limit_in_bytes')))
          writeFileSync(file('memory.memsw.limit_in_bytes'), bytes);
      }
      return;
    }
    case 'cpu': {
      const quota = String(Math.max(1000, Math.round(limits.cpuCores * CPU_PERIOD_US)));
      if (version === 2) writeFileSync(file('cpu.max'), `${quota} ${CPU_PERIOD_US}`);
      else {
        writeFileSync(file('cpu.cfs_period_us'), String(CPU_PERIOD_US));
        writeFileSync(file('cpu.cfs_quota_us'), quota);
      }
      return;
    }
    case 'pids':
      if (limits.maxProcesses !== undefined)
        writeFileSync(file('pids.max'), String(limits.maxProcesses));
      return;
    case 'io': {
      if (limits.device === undefined) return;
      const rate = String(Math.floor(limits.diskBytesPerSecond));
      if (version === 2) {
        writeFileSync(file('io.max'), `${limits.device} rbps=${rate} wbps=${rate}`);
      } else {
        writeFileSync(file('blkio.throttle.read_bps_device'), `${limits.device} ${rate}`);
        writeFileSync(file('blkio.throttle.write_bps_device'), `${limits.device} ${rate}`);
      }
      return;
    }
  }
}

function read(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function tryWrite(path: string, text: string): void {
  try {
    writeFileSync(path, text);
  } catch {
    // best effort: each pid is killed after
  }
}

/** The number after `key ` on its own line of a flat-keyed file (`oom_kill 1`). */
function keyed(text: string, key: string): number {
  const match = new RegExp(`^${key} (\\d+)$`, 'm').exec(text);
  return match ? Number(match[1]) : 0;
}

function number(text: string): number | undefined {
  const value = Number(text.trim());
  return text.trim() !== '' && Number.isFinite(value) ? value : undefined;
}
