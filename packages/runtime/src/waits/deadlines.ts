import type { CompiledRuntimeOptions } from '../options.js';

/** Waits ended per store query in one pass. */
const BATCH = 100;
/** Longest timer: Node's limit (~24.8 days); a later deadline is armed again when it fires. */
const MAX_DELAY_MS = 2_147_483_647;
/** Delay before another pass when a pass left expired waits behind (they failed to end). */
const RETRY_MS = 1000;

/**
 * The deadlines of waiting executions, with ONE timer per runtime, armed for the nearest
 * deadline this replica knows of: waiting costs no CPU and no query per execution. The timer is
 * armed from the store at start (a restarted replica loses nothing), moved earlier by each wait
 * this replica starts ({@link note}), and armed again from the store after each pass and when
 * the wait it is armed for is decided here ({@link decided}). Waits started by other replicas
 * reach it through one query every `sweepMs` (the earliest deadline, read from an index of
 * waiting rows only); several replicas may then end the same expired wait at once, and the
 * store lets exactly one of them.
 */
export class WaitDeadlines {
  private timer: NodeJS.Timeout | undefined;
  private armed: number | undefined;
  private check: NodeJS.Timeout | undefined;
  private pass: Promise<number> = Promise.resolve(0);
  private closed = false;

  constructor(
    private readonly options: CompiledRuntimeOptions,
    /** Ends wait `id` as expired at `now`; false when it was not (resumed or ended first). */
    private readonly expire: (id: string, now: number) => Promise<boolean>,
  ) {}

  /** Arms the timer from the store and starts looking for other replicas' waits. */
  async start(): Promise<void> {
    this.closed = false;
    await this.refresh();
    this.check = setInterval(() => void this.refresh(), this.options.sweepMs);
    this.check.unref();
  }

  /** The deadline (ms) the timer is armed for; undefined when none is known. */
  get nextDeadline(): number | undefined {
    return this.armed;
  }

  /** Learns a wait's deadline (ms): arms the timer for it when it is the nearest. */
  note(deadline: number): void {
    if (this.closed || (this.armed !== undefined && this.armed <= deadline)) return;
    clearTimeout(this.timer);
    this.armed = deadline;
    const delay = Math.min(Math.max(0, deadline - this.options.clock.now()), MAX_DELAY_MS);
    this.timer = setTimeout(() => {
      this.timer = this.armed = undefined;
      void this.expireDue();
    }, delay);
    this.timer.unref();
  }

  /**
   * Learns that a wait with `deadline` (ms) was decided: when the timer is armed for it, it is
   * armed again from the store (for the next deadline), so that it does not fire for nothing.
   */
  decided(deadline: number): void {
    if (this.closed || this.armed !== deadline) return;
    clearTimeout(this.timer);
    this.timer = this.armed = undefined;
    void this.refresh();
  }

  /**
   * Ends every wait whose deadline has passed on the clock (after the pass in progress, if
   * any), then arms the timer for the next deadline; resolves with how many this call ended.
   * The timer calls it; tests with a fake clock too.
   */
  expireDue(): Promise<number> {
    const pass = this.pass.then(() => this.runPass());
    this.pass = pass.catch(() => 0);
    return pass;
  }

  /** Stops the timers; a pass in progress finishes. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.check);
    this.timer = this.armed = undefined;
    await this.pass;
  }

  private async runPass(): Promise<number> {
    const { store, clock, onError } = this.options;
    const now = clock.now();
    let ended = 0;
    let stuck = false;
    try {
      for (;;) {
        const ids = await store.expiredWaits(now, BATCH);
        const results = await Promise.all(
          ids.map((id) =>
            this.expire(id, now).catch((error: unknown) => {
              onError(error, `ending the expired wait of execution ${id}`);
              stuck = true;
              return false;
            }),
          ),
        );
        ended += results.filter(Boolean).length;
        if (ids.length < BATCH || stuck) break;
      }
    } catch (error) {
      onError(error, 'looking for expired waits');
      stuck = true;
    }
    // The store has every deadline (a wait is stored before it is noted): arm from it alone.
    // One not after `now` is left only by a wait that failed to end: it is retried later.
    clearTimeout(this.timer);
    this.timer = this.armed = undefined;
    await this.refresh(now);
    return ended;
  }

  /**
   * Arms the timer for the earliest deadline in the store, when it is the nearest; one not after
   * `passed` (ms) is taken as one that failed to end and is tried again in {@link RETRY_MS}.
   */
  private async refresh(passed = Number.NEGATIVE_INFINITY): Promise<void> {
    if (this.closed) return;
    try {
      const next = await this.options.store.nextWaitDeadline();
      if (next !== undefined) this.note(next <= passed ? passed + RETRY_MS : next);
    } catch (error) {
      this.options.onError(error, 'reading the next wait deadline');
    }
  }
}
