import { readFileSync, unwatchFile, watchFile, type Stats } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { AccessPolicy } from '@weft/core';
import { parseAccessPolicy } from '@weft/identity';

/** Two stats that differ: make the listener read the file. */
const CHANGED = { mtimeMs: 1, size: 0 } as Stats;
const UNCHANGED = { mtimeMs: 0, size: 0 } as Stats;

/** Where the watcher reports. */
export interface AccessFileLog {
  info(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/**
 * Reads the access file (`WEFT_ACCESS_FILE`) at start and again whenever it changes (its size or
 * modification time, polled: this also sees editors' atomic renames and Kubernetes ConfigMap
 * updates). A file that no longer reads or parses keeps the last good policy in force and logs
 * why; the next good version replaces it.
 */
export class AccessFileWatcher {
  private lastText: string;
  private reading: Promise<void> = Promise.resolve();
  private recheck: NodeJS.Timeout | undefined;
  private readonly listener = (current: Stats, previous: Stats) => {
    if (current.mtimeMs === previous.mtimeMs && current.size === previous.size) return;
    this.reading = this.reading.then(() => this.reload());
  };

  private constructor(
    readonly path: string,
    private readonly apply: (policy: AccessPolicy) => void,
    private readonly log: AccessFileLog,
    first: { text: string; policy: AccessPolicy },
  ) {
    this.lastText = first.text;
    apply(first.policy);
  }

  /**
   * Loads the file (throwing `VALIDATION` naming the file and the field, or the read error, so
   * that a server with a bad access file does not start), hands its policy to `apply`, and
   * watches for changes.
   */
  static open(
    path: string,
    pollMs: number,
    apply: (policy: AccessPolicy) => void,
    log: AccessFileLog,
  ): AccessFileWatcher {
    const text = readFileSync(path, 'utf8');
    const policy = parseAccessPolicy(text, path);
    const watcher = new AccessFileWatcher(path, apply, log, { text, policy });
    log.info({ path, roles: policy.roles.size }, 'access file loaded');
    watchFile(path, { interval: pollMs, persistent: false }, watcher.listener);
    // A change between the read above and the watcher's first look would go unseen: look once.
    watcher.recheck = setTimeout(() => watcher.listener(CHANGED, UNCHANGED), pollMs);
    watcher.recheck.unref();
    return watcher;
  }

  /** Waits for a reload under way (tests). */
  settled(): Promise<void> {
    return this.reading;
  }

  /** Stops watching. */
  close(): void {
    clearTimeout(this.recheck);
    unwatchFile(this.path, this.listener);
  }

  private async reload(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      this.log.error(
        { path: this.path, err: error },
        `access file ${this.path} cannot be read; the last good version stays in force`,
      );
      return;
    }
    if (text === this.lastText) return;
    try {
      const policy = parseAccessPolicy(text, this.path);
      this.lastText = text;
      this.apply(policy);
      this.log.info({ path: this.path, roles: policy.roles.size }, 'access file reloaded');
    } catch (error) {
      this.log.error(
        { path: this.path, reason: (error as Error).message },
        `access file ${this.path} not reloaded, the last good version stays in force: ${(error as Error).message}`,
      );
    }
  }
}
