import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  rmdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { Cgroup, type GroupLimits } from './cgroup.js';
import {
  discoverControllers,
  type CgroupFacts,
  type Controller,
  type ControllerPlace,
} from './cgroup-discovery.js';
import type { LimitName } from './limits.js';
import { makeDirectory } from './scratch.js';

/** How one limit is enforced on this host, or why it is not. */
export interface LimitSupport {
  readonly enforced: boolean;
  /** How it is enforced, or why it cannot be (the missing capability). */
  readonly how: string;
}

/** What the host can enforce, found once by {@link probeHost}. */
export interface HostCapabilities {
  /** The controllers whose parent group could be written, by controller. */
  readonly places: ReadonlyMap<Controller, ControllerPlace>;
  /** Whether the POSIX shell that sets rlimits (`/bin/sh`) is there. */
  readonly shell: boolean;
  /** The scratch root's block device (`major:minor`), when it is on one. */
  readonly device: string | undefined;
  /** Per limit: enforced, and how or why not. */
  readonly support: Readonly<Record<LimitName, LimitSupport>>;
}

/** Where {@link probeHost} looks; tests replace the host's files. */
export interface ProbeOptions {
  readonly cgroupParent: string;
  readonly scratchRoot: string;
  readonly platform: NodeJS.Platform;
  /** Default: the process's `/proc/self/mountinfo` and `/proc/self/cgroup`. */
  readonly facts: CgroupFacts | undefined;
  /** The POSIX shell that sets the rlimits (`/bin/sh`). */
  readonly shell: string;
}

const PROBE_LIMITS: GroupLimits = {
  memoryBytes: 512e6,
  cpuCores: 0.5,
  maxProcesses: 64,
  diskBytesPerSecond: 10e6,
  device: undefined,
};

/**
 * Finds what this host enforces: for each controller, makes the parent group (and, on v2,
 * enables the controller below the process's own group), then makes and removes a probe group
 * with limits written; finds the POSIX shell; finds the scratch root's block device.
 */
export function probeHost(options: ProbeOptions): HostCapabilities {
  makeDirectory(options.scratchRoot);
  const why = new Map<Controller, string>();
  const places = new Map<Controller, ControllerPlace>();
  let device: string | undefined;
  if (options.platform !== 'linux') {
    for (const c of ['memory', 'cpu', 'pids', 'io'] as const) why.set(c, 'this host is not Linux');
  } else {
    const found = discoverControllers(options.facts ?? hostFacts(), options.cgroupParent);
    device = blockDevice(options.scratchRoot);
    for (const controller of ['memory', 'cpu', 'pids', 'io'] as const) {
      const place = found.get(controller);
      if (!place) {
        why.set(
          controller,
          `no ${controller === 'io' ? 'io/blkio' : controller} cgroup controller is mounted`,
        );
        continue;
      }
      const problem = tryPlace(place, controller === 'io' ? device : undefined);
      if (problem) why.set(controller, problem);
      else places.set(controller, place);
    }
    if (places.has('io') && device === undefined) {
      places.delete('io');
      why.set('io', `the scratch root ${options.scratchRoot} is not on a block device`);
    }
  }
  const shell = options.platform !== 'win32' && executable(options.shell);
  const cg = (controller: Controller, what: string): LimitSupport => {
    const place = places.get(controller);
    return place
      ? { enforced: true, how: `cgroup v${place.version} ${what} under ${place.parent}` }
      : { enforced: false, how: why.get(controller)! };
  };
  const noShell = `there is no POSIX shell at ${options.shell}`;
  return {
    places,
    shell,
    device,
    support: {
      memory: cg(
        'memory',
        places.get('memory')?.version === 2
          ? 'memory.max, swap off'
          : 'memory.limit_in_bytes, swap off',
      ),
      cpu: cg('cpu', places.get('cpu')?.version === 2 ? 'cpu.max' : 'cpu.cfs_quota_us'),
      processes: cg('pids', 'pids.max (counts processes and threads)'),
      disk_io: cg(
        'io',
        places.get('io')?.version === 2
          ? `io.max on ${device}`
          : `blkio throttle on ${device} (reads and direct writes; v1 does not throttle buffered writes)`,
      ),
      file_descriptors: shell
        ? {
            enforced: true,
            how: `RLIMIT_NOFILE (soft and hard), set by ${options.shell} before exec`,
          }
        : { enforced: false, how: noShell },
      storage: {
        enforced: true,
        how:
          `a scratch directory under ${options.scratchRoot}, measured every 100 ms and at exit` +
          (shell ? '; RLIMIT_FSIZE caps each file' : ''),
      },
      bandwidth: {
        enforced: false,
        how: "weft does not throttle a shell action's own network traffic (http actions are throttled)",
      },
    },
  };
}

/** Makes the parent group and a probe group below it; the problem, or undefined when writable. */
function tryPlace(place: ControllerPlace, device: string | undefined): string | undefined {
  const probe = `probe-${process.pid}`;
  let at = place.parent;
  try {
    prepareParent(place);
    at = join(place.parent, probe);
    if (existsSync(at)) rmdirSync(at);
    const group = Cgroup.create(new Map([[place.controller, place]]), probe, {
      ...PROBE_LIMITS,
      device,
    });
    if (!existsSync(join(at, 'cgroup.procs'))) {
      void group.remove();
      return `${place.parent} is not a control group`;
    }
    rmdirSync(at);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return `cannot write the control group ${at} (${code})`;
  }
}

/**
 * Makes the parent group if it is missing (another process may have removed it when it was
 * empty); on v2, enables the controller from the own group down to it.
 */
export function prepareParent(place: ControllerPlace): void {
  if (place.version === 2) enableBelow(place);
  else mkdirSync(place.parent, { recursive: true });
}

/** On v2, enables the controller in `cgroup.subtree_control` from the own group down to the parent. */
function enableBelow(place: ControllerPlace): void {
  const name = place.controller;
  const steps = relative(place.own, place.parent).split(sep).filter(Boolean);
  if (!place.parent.startsWith(place.own)) {
    mkdirSync(place.parent, { recursive: true });
    enable(dirname(place.parent), name);
    enable(place.parent, name);
    return;
  }
  let dir = place.own;
  enable(dir, name);
  for (const step of steps) {
    dir = join(dir, step);
    if (!existsSync(dir)) mkdirSync(dir);
    enable(dir, name);
  }
}

function enable(dir: string, controller: Controller): void {
  const file = join(dir, 'cgroup.subtree_control');
  if (readFileSync(file, 'utf8').split(/\s+/).includes(controller)) return;
  writeFileSync(file, `+${controller}`);
}

function hostFacts(): CgroupFacts {
  return {
    mountinfo: readText('/proc/self/mountinfo'),
    selfCgroup: readText('/proc/self/cgroup'),
    v2Controllers: (mount) =>
      readText(join(mount, 'cgroup.controllers')).split(/\s+/).filter(Boolean),
  };
}

/** `major:minor` of the block device holding `path`, when it is a real one. */
function blockDevice(path: string): string | undefined {
  const dev = statSync(path).dev;
  const major = Number((BigInt(dev) >> 8n) & 0xfffn) | Number((BigInt(dev) >> 32n) & ~0xfffn);
  const minor = Number(BigInt(dev) & 0xffn) | Number((BigInt(dev) >> 12n) & ~0xffn);
  if (major === 0) return undefined;
  const id = `${major}:${minor}`;
  return existsSync(`/sys/dev/block/${id}`) ? id : undefined;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
