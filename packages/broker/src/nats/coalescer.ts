/**
 * Runs protocol operations (publishes, acks) together once per event-loop turn. The NATS client
 * writes to the socket once per microtask drain; operations issued from many separate promise
 * chains would each cost a socket write. Run back to back, they share one.
 */
export class Coalescer {
  private ops: (() => void)[] = [];
  private scheduled = false;

  /** Queues `op` for the end of this turn; a throwing op does not stop the others. */
  run(op: () => void): void {
    this.ops.push(op);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
  }

  /** Runs every queued op now. */
  readonly flush = (): void => {
    this.scheduled = false;
    const ops = this.ops;
    this.ops = [];
    for (const op of ops) {
      try {
        op();
      } catch {
        // reported by the op's own promise where it has one
      }
    }
  };
}
