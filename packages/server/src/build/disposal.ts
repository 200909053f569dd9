/** Closes one thing a phase of the build opened. */
export type Disposal = () => void | Promise<void>;

/**
 * What the phases of `buildServer` opened (store connections, the broker, timers, watchers,
 * telemetry, the app), closed in the reverse order: whatever was opened later may use what was
 * opened before it, never the other way round. A failed build and the server's `close` empty
 * the same stack.
 */
export class DisposalStack {
  private readonly opened: Disposal[] = [];
  private closing: Promise<void> | undefined;

  /** Registers how to close what was just opened. */
  push(close: Disposal): void {
    this.opened.push(close);
  }

  /**
   * Closes everything, last opened first; one failing to close does not keep the others open.
   * Rejects with the first failure. Calls after the first share its result.
   */
  close(): Promise<void> {
    this.closing ??= this.closeAll();
    return this.closing;
  }

  /**
   * Runs the phases of a build: when one throws, everything opened so far is closed before the
   * error reaches the caller (a failure to close is dropped there: the build's error is the one
   * to report).
   */
  async build<T>(phases: () => Promise<T>): Promise<T> {
    try {
      return await phases();
    } catch (error) {
      await this.close().catch(() => undefined);
      throw error;
    }
  }

  private async closeAll(): Promise<void> {
    const failures: unknown[] = [];
    for (let close = this.opened.pop(); close; close = this.opened.pop()) {
      try {
        await close();
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length > 0) throw failures[0];
  }
}
