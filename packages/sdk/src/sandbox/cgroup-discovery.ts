import { join } from 'node:path';

/** The controllers the sandbox uses. `io` is `blkio` on the v1 hierarchy. */
export const CONTROLLERS = ['memory', 'cpu', 'pids', 'io'] as const;
export type Controller = (typeof CONTROLLERS)[number];

/** Where one controller is mounted, and the parent group the sandbox makes its groups under. */
export interface ControllerPlace {
  readonly controller: Controller;
  readonly version: 1 | 2;
  /** The hierarchy's mount point (`/sys/fs/cgroup/memory`, `/sys/fs/cgroup`). */
  readonly mount: string;
  /** The process's own group in that hierarchy, as a directory. */
  readonly own: string;
  /** The parent group of the sandbox's groups, as a directory. */
  readonly parent: string;
}

/** What the host's files say: the `/proc/self/mountinfo` and `/proc/self/cgroup` texts. */
export interface CgroupFacts {
  readonly mountinfo: string;
  readonly selfCgroup: string;
  /** The controllers the v2 hierarchy's root offers (`cgroup.controllers`), if there is one. */
  readonly v2Controllers: (mount: string) => readonly string[];
}

interface Mount {
  readonly root: string;
  readonly point: string;
  readonly type: 'cgroup' | 'cgroup2';
  readonly options: readonly string[];
}

/**
 * Finds each controller's hierarchy (the v2 unified one when it offers the controller, else its
 * v1 mount) and the parent group: `parent` starting with `/` is a path from the hierarchy's
 * root, else one below the process's own group. A controller found nowhere is absent.
 */
export function discoverControllers(
  facts: CgroupFacts,
  parent: string,
): Map<Controller, ControllerPlace> {
  const mounts = parseMountinfo(facts.mountinfo);
  const own = parseSelfCgroup(facts.selfCgroup);
  const places = new Map<Controller, ControllerPlace>();
  const v2 = mounts.find((m) => m.type === 'cgroup2');
  const v2Offers = v2 ? facts.v2Controllers(v2.point) : [];
  for (const controller of CONTROLLERS) {
    let mount: Mount | undefined;
    let version: 1 | 2 = 1;
    if (v2 && v2Offers.includes(controller)) {
      mount = v2;
      version = 2;
    } else {
      const v1Name = controller === 'io' ? 'blkio' : controller;
      mount = mounts.find((m) => m.type === 'cgroup' && m.options.includes(v1Name));
    }
    if (!mount) continue;
    const ownPath = relativeToMount(
      (version === 2 ? own.get('') : own.get(controller === 'io' ? 'blkio' : controller)) ?? '/',
      mount.root,
    );
    const ownDir = join(mount.point, ownPath);
    places.set(controller, {
      controller,
      version,
      mount: mount.point,
      own: ownDir,
      parent: parent.startsWith('/') ? join(mount.point, parent) : join(ownDir, parent),
    });
  }
  return places;
}

function parseMountinfo(text: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of text.split('\n')) {
    const [before, after] = line.split(' - ');
    if (!before || !after) continue;
    const fields = before.split(' ');
    const [type, , superOptions] = after.split(' ');
    if (type !== 'cgroup' && type !== 'cgroup2') continue;
    mounts.push({
      root: unescape(fields[3] ?? '/'),
      point: unescape(fields[4] ?? ''),
      type,
      options: [...(fields[5] ?? '').split(','), ...(superOptions ?? '').split(',')],
    });
  }
  return mounts;
}

/** `hierarchy:controllers:path` lines; the v2 line (`0::/path`) is keyed by `''`. */
function parseSelfCgroup(text: string): Map<string, string> {
  const paths = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^\d+:([^:]*):(.*)$/.exec(line.trim());
    if (!match) continue;
    const [, controllers, path] = match as unknown as [string, string, string];
    if (controllers === '') paths.set('', path);
    for (const name of controllers.split(',')) if (name) paths.set(name, path);
  }
  return paths;
}

function relativeToMount(path: string, root: string): string {
  if (root === '/' || !path.startsWith(root)) return path;
  return path.slice(root.length) || '/';
}

/** mountinfo escapes spaces, tabs, newlines and backslashes as octal. */
function unescape(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_, octal: string) =>
    String.fromCharCode(parseInt(octal, 8)),
  );
}
