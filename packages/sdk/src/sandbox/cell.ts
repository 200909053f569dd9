import type { Cgroup } from './cgroup.js';
import type { LimitName, SandboxLimits } from './limits.js';
import { diskUsage, removeTree } from './scratch.js';

/** How often a running action's storage and processes are checked. */
export const WATCH_MS = 100;

/** A limit the action went past: what `details` of its `BACKEND_ERROR` say. */
export interface Breach {
  readonly limit: LimitName;
  /** The limit as configured (`"64MB"`, `8`), or the default's value in bytes. */
  readonly configured: string | number;
  /** What was seen, where known (bytes, tasks). */
  readonly observed?: number;
  /** One sentence for the message. */
  readonly reason: string;
}

/** The program to spawn for a command, after {@link Cell.wrap}. */
export interface WrappedCommand {
  readonly file: string;
  readonly args: string[];
}

/**
 * The shell that starts every command in a cell: `sh -c SCRIPT weft-sandbox NOFILE BLOCKS N
 * procs... -- command...`. It writes its pid to each `cgroup.procs` (joining the groups), sets
 * `RLIMIT_NOFILE` and `RLIMIT_FSIZE` (`-` for none; POSIX counts `ulimit -f` in 512-byte
 * blocks) and execs the command. Every value comes in as an argument: nothing of the command
 * is parsed by the shell. A step that fails exits 125 with `weft-sandbox:` on stderr.
 */
const CELL_SCRIPT = [
  'f=$1; b=$2; n=$3; shift 3',
  'while [ "$n" -gt 0 ]; do echo $$ > "$1" || { echo "weft-sandbox: cannot join the control group $1" >&2; exit 125; }; shift; n=$((n-1)); done',
  'shift',
  'if [ "$f" != - ]; then ulimit -n "$f" || { echo "weft-sandbox: cannot set RLIMIT_NOFILE to $f" >&2; exit 125; }; fi',
  'if [ "$b" != - ]; then ulimit -f "$b" || { echo "weft-sandbox: cannot set RLIMIT_FSIZE" >&2; exit 125; }; fi',
  'exec "$@"',
].join('\n');

/** The POSIX shell the cell script runs in, by default. */
export const CELL_SHELL = '/bin/sh';

/**
 * One action process's confinement: its control group (if the host has one), its scratch
 * directory and the limits. Made by `Sandbox.enter`; `dispose` kills what is left and removes
 * both.
 */
export class Cell {
  /** The breach the watcher found, if it found one. */
  private seen: Breach | undefined;
  private watcher: NodeJS.Timeout | undefined;
  private disposed = false;

  constructor(
    /** The working directory and `TMPDIR` of the action. */
    readonly scratch: string,
    readonly limits: SandboxLimits,
    private readonly group: Cgroup | undefined,
    /** The POSIX shell that joins the groups and sets the rlimits; none: the command as it is. */
    private readonly shell: string | undefined,
  ) {}

  /** The variables the action gets on top of its environment. */
  environment(): Record<string, string> {
    return {
      TMPDIR: this.scratch,
      TMP: this.scratch,
      TEMP: this.scratch,
      WEFT_SCRATCH_DIR: this.scratch,
    };
  }

  /** The command that runs `program args` inside the cell (groups joined, rlimits set). */
  wrap(program: string, args: readonly string[]): WrappedCommand {
    const fds = this.limits.maxFileDescriptors;
    const bytes = this.limits.storageBytes;
    const procs = this.group?.procsFiles() ?? [];
    if (!this.shell || (procs.length === 0 && fds === undefined && bytes === undefined)) {
      return { file: program, args: [...args] };
    }
    const blocks = bytes === undefined ? '-' : String(Math.max(1, Math.floor(bytes / 512)));
    return {
      file: this.shell,
      args: [
        '-c',
        CELL_SCRIPT,
        'weft-sandbox',
        fds === undefined ? '-' : String(fds),
        blocks,
        String(procs.length),
        ...procs,
        '--',
        program,
        ...args,
      ],
    };
  }

  /**
   * Watches the running action every {@link WATCH_MS}: the scratch directory against
   * `storage.maxSize`, and the control group for a fork refused at `maxProcesses` (a program
   * that cannot start a thread may wait forever, so that is a breach at once). `onBreach` is
   * called once.
   */
  watch(onBreach: (breach: Breach) => void): void {
    const cap = this.limits.storageBytes;
    const pids = this.limits.maxProcesses !== undefined && this.group !== undefined;
    if (cap === undefined && !pids) return;
    let measuring = false;
    const found = (breach: Breach) => {
      if (this.seen || this.disposed) return;
      this.seen = breach;
      onBreach(breach);
    };
    this.watcher = setInterval(() => {
      if (measuring || this.seen) return;
      if (pids) {
        const processes = this.processes();
        if (processes) return found(processes);
      }
      if (cap === undefined) return;
      measuring = true;
      void diskUsage(this.scratch).then((used) => {
        measuring = false;
        if (used > cap) found(this.storage(used));
      });
    }, WATCH_MS);
    this.watcher.unref();
  }

  /**
   * After the process ended: the limit it went past, if any — storage (the watcher, a file over
   * `RLIMIT_FSIZE`, or the size at exit), memory (the OOM killer acted), processes (a fork was
   * refused at `pids.max`), file descriptors (a failure that says `EMFILE`).
   */
  async breach(
    code: number | null,
    signal: string | null,
    stderr: string,
  ): Promise<Breach | undefined> {
    this.stopWatching();
    if (this.seen) return this.seen;
    const cap = this.limits.storageBytes;
    if (cap !== undefined) {
      const used = await diskUsage(this.scratch);
      // Past RLIMIT_FSIZE a write kills with SIGXFSZ, or fails with EFBIG where it is ignored (node).
      const tooLarge = signal === 'SIGXFSZ' || (code !== 0 && /EFBIG|file too large/i.test(stderr));
      if (tooLarge || used > cap) return this.storage(used);
    }
    const stats = this.group?.stats();
    const written = this.limits.written;
    if (stats && stats.oomKills > 0) {
      return {
        limit: 'memory',
        configured: written.memory ?? this.limits.memoryBytes,
        ...(stats.memoryPeak !== undefined ? { observed: stats.memoryPeak } : {}),
        reason: `the command went over its memory limit of ${written.memory ?? `${this.limits.memoryBytes} bytes`} and was killed`,
      };
    }
    const processes = this.processes(stats);
    if (processes) return processes;
    const fds = this.limits.maxFileDescriptors;
    if (fds !== undefined && code !== 0 && /EMFILE|too many open files/i.test(stderr)) {
      return {
        limit: 'file_descriptors',
        configured: fds,
        reason: `the command ran out of file descriptors (limit ${fds})`,
      };
    }
    return undefined;
  }

  /** Kills what is left in the group, removes it, and removes the scratch directory if ephemeral. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.stopWatching();
    try {
      await this.group?.remove();
    } finally {
      if (this.limits.ephemeral) removeTree(this.scratch);
    }
  }

  /** Kills every process of the cell now (the process group is killed by the caller too). */
  kill(): void {
    this.group?.killAll();
  }

  private stopWatching(): void {
    if (this.watcher) clearInterval(this.watcher);
    this.watcher = undefined;
  }

  /** A processes breach when the group refused a fork at `maxProcesses`. */
  private processes(stats = this.group?.stats()): Breach | undefined {
    const max = this.limits.maxProcesses;
    if (!stats || stats.pidsRefused === 0 || max === undefined) return undefined;
    return {
      limit: 'processes',
      configured: max,
      ...(stats.pidsPeak !== undefined ? { observed: stats.pidsPeak } : {}),
      reason: `the command tried to run more than ${max} processes and threads (${stats.pidsRefused} refused)`,
    };
  }

  private storage(used: number): Breach {
    const written = this.limits.written.storage ?? `${this.limits.storageBytes} bytes`;
    return {
      limit: 'storage',
      configured: written,
      ...(Number.isFinite(used) ? { observed: used } : {}),
      reason: `the command wrote more than its storage.maxSize of ${written} to ${this.scratch}`,
    };
  }
}
