import type {
  EventRow,
  ExecutionOutcome,
  ExecutionsStore,
  JournalRow,
  StreamEvent,
  UsageEntry,
  WaitingFor,
} from '@weft/core';
import type { JournaledStep } from '@weft/engine';
import type { ExecutionHub } from './hub.js';
import { cleanError } from './record.js';

/** Longest time an event waits for a step to be written with. */
export const EVENT_DELAY_MS = 5;

/** Delays before writing again after a failed write (a lost database connection comes back). */
const RETRY_DELAYS_MS = [50, 200, 500, 1000, 2000];

/** Runs `write`, again after each delay while it fails; rethrows the last failure. */
async function persistently<T>(write: () => Promise<T>): Promise<T> {
  for (const delay of RETRY_DELAYS_MS) {
    try {
      return await write();
    } catch {
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
  return write();
}

/**
 * The durable side of one running execution: numbers its events, buffers them, and writes them
 * with the finished steps. Writes of one execution are serialized (so events commit in order)
 * and grouped (what accumulated while a write was in flight goes in the next one). Waiters are
 * woken only once events are stored, so a client never sees an event that could vanish. A failed
 * write is tried again for a few seconds, so that a database restart does not fail the run.
 */
export class JournalBuffer {
  private steps: JournalRow[] = [];
  private events: EventRow[] = [];
  private tail: Promise<unknown> = Promise.resolve();
  private scheduled = false;
  /** The write that takes the steps journaled in this turn of the event loop. */
  private stepWrite: Promise<void> | undefined;

  constructor(
    private readonly store: ExecutionsStore,
    private readonly hub: ExecutionHub,
    private readonly id: string,
    private seq: number,
  ) {}

  /** Takes an event of the engine (already masked); written with the next step or shortly. */
  event(event: StreamEvent): void {
    if (event.type === 'step.failed' || event.type === 'workflow.completed') {
      const error = event.data['error'];
      if (error !== undefined)
        event = { ...event, data: { ...event.data, error: cleanError(error) } };
    }
    this.events.push({ seq: ++this.seq, type: event.type, json: JSON.stringify(event) });
    if (!this.scheduled) {
      // Events usually go with the step that finishes next; those of a longer step (its
      // `step.started`, its progress) are written after EVENT_DELAY_MS.
      this.scheduled = true;
      setTimeout(() => {
        this.scheduled = false;
        if (this.events.length > 0) this.flush().catch(() => {});
      }, EVENT_DELAY_MS).unref();
    }
  }

  /**
   * Journals a finished step (with the events so far); resolves once it is stored. The write
   * waits until the promise jobs queued now have run (a `nextTick` runs after them): when the
   * run ends in those, its {@link finish} writes the step with the end, in one transaction.
   */
  step(step: JournaledStep): Promise<void> {
    this.steps.push({ path: step.path, json: JSON.stringify(step) });
    this.stepWrite ??= new Promise<void>((resolve) => process.nextTick(resolve)).then(() => {
      this.stepWrite = undefined;
      return this.flush();
    });
    return this.stepWrite;
  }

  /** Writes what is buffered, after the writes before it. */
  flush(): Promise<void> {
    const write = this.tail.then(() => this.write());
    this.tail = write.catch(() => {});
    return write;
  }

  /**
   * Ends the execution with the events still buffered and its usage; false when it had already
   * ended.
   */
  finish(outcome: ExecutionOutcome, usage: UsageEntry): Promise<boolean> {
    const write = this.tail.then(async () => {
      const { steps, events } = this.take();
      const ended = await persistently(() =>
        this.store.finish(this.id, outcome, { events, steps, usage }),
      );
      this.hub.notify(this.id);
      return ended;
    });
    this.tail = write.catch(() => {});
    return write;
  }

  /**
   * Writes what is buffered with `row` (an agent step's saved state), then makes the execution
   * wait for `waiting` (its lease given up) with the events `requested` makes for the next
   * sequence number; false when `worker` no longer held it.
   */
  suspend(
    row: JournalRow,
    worker: string,
    waiting: WaitingFor,
    requested: (seq: number) => EventRow[],
  ): Promise<boolean> {
    const write = this.tail.then(async () => {
      const { steps, events } = this.take();
      await persistently(() => this.store.journal(this.id, [...steps, row], events));
      const next = requested(this.seq + 1);
      this.seq += next.length;
      const suspended = await persistently(() =>
        this.store.suspend(this.id, worker, waiting, next),
      );
      this.hub.notify(this.id);
      return suspended;
    });
    this.tail = write.catch(() => {});
    return write;
  }

  private async write(): Promise<void> {
    const { steps, events } = this.take();
    if (steps.length === 0 && events.length === 0) return;
    await persistently(() => this.store.journal(this.id, steps, events));
    if (events.length > 0) this.hub.notify(this.id);
  }

  private take(): { steps: JournalRow[]; events: EventRow[] } {
    const taken = { steps: this.steps, events: this.events };
    this.steps = [];
    this.events = [];
    return taken;
  }
}
