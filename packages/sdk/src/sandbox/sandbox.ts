import { ValidationError, type ConnectorRuntime } from '@weft/core';
import { rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cgroup } from './cgroup.js';
import type { CgroupFacts } from './cgroup-discovery.js';
import { Cell, CELL_SHELL } from './cell.js';
import { prepareParent, probeHost, type HostCapabilities } from './host.js';
import { resolveLimits, type LimitName, type SandboxLimits } from './limits.js';
import { makeDirectory, orphans, processAlive, removeTree } from './scratch.js';

/**
 * `strict` (the default) refuses a call whose connector or step declares a limit this host
 * cannot enforce; `best-effort` runs it with what the host has and warns once per connector.
 */
export type SandboxMode = 'strict' | 'best-effort';

/** Options of {@link Sandbox.open}. Nothing is read from the process environment. */
export interface SandboxOptions {
  /** See {@link SandboxMode}. Default `strict`. */
  mode?: SandboxMode;
  /**
   * The parent control group (`WEFT_CGROUP_PARENT`): from each hierarchy's root when it starts
   * with `/`, else below this process's own group. Made on first use. Default `weft`.
   */
  cgroupParent?: string;
  /** Where scratch directories are made. Default `<os tmpdir>/weft-scratch`. */
  scratchRoot?: string;
  /** Told once per connector when `best-effort` runs a limit it cannot enforce. */
  warn?: (message: string) => void;
  /** The host's cgroup files, for tests. Default: this process's `/proc/self/*`. */
  facts?: CgroupFacts;
  /** The platform, for tests. Default `process.platform`. */
  platform?: NodeJS.Platform;
  /** The POSIX shell that sets the rlimits, for tests. Default `/bin/sh`. */
  shell?: string;
}

/** What one call of a shell action runs under, and where. */
export interface CellRequest {
  /** The connector's `runtime` and the step's (it overrides field by field). */
  readonly connectorRuntime: ConnectorRuntime | undefined;
  readonly stepRuntime: ConnectorRuntime | undefined;
  /** `<namespace>/<name>`: names the persistent directory and the warnings. */
  readonly connector: string;
  /** `<plugin>.<action>`, for messages. */
  readonly call: string;
}

let sequence = 0;

/** Sandboxes open in this process: their empty parent groups are removed when it exits. */
const open = new Set<Sandbox>();
let exitHook = false;

/**
 * The connector sandbox (docs/workflow-language.md#connector-runtime): a shell action's process
 * runs in a control group of its own (memory with swap off, CPU quota, pids, disk I/O), with
 * `RLIMIT_NOFILE`/`RLIMIT_FSIZE` set by the shell that starts it, in a scratch directory of its own that is
 * measured against `storage.maxSize`. {@link Sandbox.open} probes the host once and removes
 * what a killed earlier process left behind.
 */
export class Sandbox {
  private readonly warned = new Set<string>();

  private constructor(
    /** What this host enforces. */
    readonly capabilities: HostCapabilities,
    private readonly options: Required<Pick<SandboxOptions, 'mode' | 'scratchRoot' | 'shell'>> &
      Pick<SandboxOptions, 'warn'>,
  ) {}

  /** Probes the host and cleans up after processes that died without cleaning up. */
  static async open(options: SandboxOptions = {}): Promise<Sandbox> {
    const scratchRoot = options.scratchRoot ?? join(tmpdir(), 'weft-scratch');
    const capabilities = probeHost({
      cgroupParent: options.cgroupParent ?? 'weft',
      scratchRoot,
      platform: options.platform ?? process.platform,
      facts: options.facts,
      shell: options.shell ?? CELL_SHELL,
    });
    const sandbox = new Sandbox(capabilities, {
      mode: options.mode ?? 'strict',
      scratchRoot,
      shell: options.shell ?? CELL_SHELL,
      ...(options.warn ? { warn: options.warn } : {}),
    });
    await sandbox.removeOrphans();
    open.add(sandbox);
    if (!exitHook) {
      exitHook = true;
      process.once('exit', () => {
        for (const each of open) each.close();
      });
    }
    return sandbox;
  }

  /** What a declared limit this host cannot enforce gets: refused, or run with a warning. */
  get mode(): SandboxMode {
    return this.options.mode;
  }

  /** Where best-effort warnings go. */
  get warn(): ((message: string) => void) | undefined {
    return this.options.warn;
  }

  /** Each limit, whether this host enforces it, and how or why not. */
  report(): { limit: LimitName; enforced: boolean; how: string }[] {
    return Object.entries(this.capabilities.support).map(([limit, s]) => ({
      limit: limit as LimitName,
      ...s,
    }));
  }

  /**
   * The limits of a call, checked against the host: a declared limit the host cannot enforce
   * is `VALIDATION` (`details {field: "runtime.<limit>", constraint: "sandbox", limit, missing}`)
   * in `strict` mode; in `best-effort` mode it is warned of once per connector.
   */
  limitsOf(request: CellRequest): SandboxLimits {
    const limits = resolveLimits(request.connectorRuntime, request.stepRuntime);
    const missing = [...limits.declared].filter((l) => !this.capabilities.support[l].enforced);
    if (missing.length === 0) return limits;
    const list = missing.map((l) => `${l} (${this.capabilities.support[l].how})`).join('; ');
    if (this.options.mode === 'strict') {
      const first = missing[0]!;
      throw new ValidationError(
        `${request.call}: this host cannot enforce the declared ${list}; remove the limit, or run with WEFT_SANDBOX=best-effort to accept it unenforced`,
        {
          field: `runtime.${first}`,
          constraint: 'sandbox',
          limit: first,
          missing: this.capabilities.support[first].how,
        },
      );
    }
    if (!this.warned.has(request.connector)) {
      this.warned.add(request.connector);
      this.options.warn?.(
        `sandbox (best-effort): ${request.connector} declares limits this host does not enforce: ${list}`,
      );
    }
    return limits;
  }

  /** Makes the cell of one call: its scratch directory and its control group with the limits. */
  enter(request: CellRequest, limits: SandboxLimits = this.limitsOf(request)): Cell {
    const name = `${process.pid}.${++sequence}`;
    const scratch = limits.ephemeral
      ? join(this.options.scratchRoot, name)
      : join(this.options.scratchRoot, 'keep', request.connector.replace(/[^A-Za-z0-9._-]/g, '_'));
    makeDirectory(scratch);
    let group: Cgroup | undefined;
    const places = this.capabilities.places;
    if (places.size > 0) {
      const groupLimits = {
        memoryBytes: limits.memoryBytes,
        cpuCores: limits.cpuCores,
        maxProcesses: limits.maxProcesses,
        diskBytesPerSecond: limits.diskBytesPerSecond,
        device: this.capabilities.device,
      };
      try {
        try {
          group = Cgroup.create(places, name, groupLimits);
        } catch (error) {
          // Another process removed the parent when it was empty: make it again, once.
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
          for (const place of places.values()) prepareParent(place);
          group = Cgroup.create(places, name, groupLimits);
        }
      } catch (error) {
        if (limits.ephemeral) removeTree(scratch);
        throw error;
      }
    }
    const shell = this.capabilities.shell ? this.options.shell : undefined;
    return new Cell(scratch, limits, group, shell);
  }

  /** Removes the parent groups if nothing is left in them (at shutdown, and when the process exits). */
  close(): void {
    open.delete(this);
    for (const place of this.capabilities.places.values()) {
      try {
        rmdirSync(place.parent);
      } catch {
        // in use by another process, or already gone
      }
    }
  }

  /** Kills and removes the groups and scratch directories of processes that no longer run. */
  private async removeOrphans(): Promise<void> {
    for (const place of this.capabilities.places.values()) {
      for (const name of orphans(place.parent, processAlive)) {
        await Cgroup.adopt(new Map([[place.controller, place]]), name).remove();
      }
    }
    for (const name of orphans(this.options.scratchRoot, processAlive)) {
      removeTree(join(this.options.scratchRoot, name));
    }
  }
}
