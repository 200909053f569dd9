import pLimit from 'p-limit';
import { systemClock, type Clock, type FireKey, type TriggerStore } from '@weft/core';
import { silentLogger, type TriggerLogger } from '../logger.js';
import type { StartExecution } from '../start-execution.js';
import {
  DEFAULT_CATCHUP_LIMITS,
  dueFires,
  nextFireAfter,
  type CatchupLimits,
  type CompiledSchedule,
} from './schedule.js';

/** Options of {@link Scheduler}. */
export interface SchedulerOptions {
  store: TriggerStore;
  start: StartExecution;
  clock?: Clock;
  logger?: TriggerLogger;
  catchup?: Partial<CatchupLimits>;
  /** Longest sleep between ticks, ms (other replicas may have moved on). Default 30 s. */
  maxSleepMs?: number;
  /**
   * Fires started at once. Default 1000: the durable starts of a burst then share a few group
   * commits instead of waiting for one after the other (64 at a time doubled the lag of the last
   * of 1,000 fires due in the same second).
   */
  concurrency?: number;
  /** Told about every fire this replica started (benchmarks measure precision with it). */
  onFire?: (fire: { workflow: string; triggerId: string; dueMs: number; firedMs: number }) => void;
}

interface Entry {
  schedule: CompiledSchedule;
  next: number | undefined;
}

/**
 * Runs schedule triggers. Each schedule's next fire is kept as a UTC instant in the store; a tick
 * runs every due fire through the catch-up policy, claims each fire in the store (a unique key on
 * workflow, trigger and fire time: exactly one replica wins) and starts the execution with
 * `trigger.payload = {scheduled_at}`. `start()` ticks on the clock, waking at the earliest next
 * fire; tests call `tick()` with a fake clock.
 */
export class Scheduler {
  private readonly entries = new Map<string, Entry[]>();
  private readonly clock: Clock;
  private readonly logger: TriggerLogger;
  private readonly limits: CatchupLimits;
  private readonly limit: ReturnType<typeof pLimit>;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private ticking: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: SchedulerOptions) {
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger;
    this.limits = { ...DEFAULT_CATCHUP_LIMITS, ...options.catchup };
    this.limit = pLimit(options.concurrency ?? 1000);
  }

  /**
   * Schedules `schedules` of a workflow, replacing those it had. A schedule whose next fire is
   * already stored keeps it (so fires missed while no server ran are caught up on the next
   * tick); a new one starts at its first fire after now.
   */
  async register(workflow: string, schedules: readonly CompiledSchedule[]): Promise<void> {
    const now = this.clock.now();
    const entries: Entry[] = [];
    for (const schedule of schedules) {
      const stored = await this.options.store.getNextFire(workflow, schedule.triggerId);
      const next = stored ?? nextFireAfter(schedule, now);
      if (stored === undefined && next !== undefined) {
        await this.options.store.setNextFire(workflow, schedule.triggerId, next);
      }
      entries.push({ schedule, next });
    }
    if (entries.length > 0) this.entries.set(workflow, entries);
    else this.entries.delete(workflow);
    this.rearm();
  }

  /** Stops scheduling a workflow; `forget` also drops its stored next fires (undeployed). */
  async unregister(workflow: string, forget: boolean): Promise<void> {
    this.entries.delete(workflow);
    if (forget) await this.options.store.clearSchedules(workflow);
    this.rearm();
  }

  /** The next fire of every schedule of a workflow (UTC epoch ms). */
  nextFires(workflow: string): (number | undefined)[] {
    return (this.entries.get(workflow) ?? []).map((e) => e.next);
  }

  /**
   * Runs every due fire now: plans each due schedule (catch-up policy), claims all their fires in
   * one statement, starts the won ones concurrently and stores every next fire in one statement.
   * Resolves with the fires this replica started.
   */
  async tick(): Promise<{ workflow: string; fireAt: number }[]> {
    const now = this.clock.now();
    const due = [...this.entries.values()]
      .flat()
      .filter((e) => e.next !== undefined && e.next <= now);
    if (due.length === 0) return [];
    const wanted: (FireKey & { entry: Entry })[] = [];
    const nexts: FireKey[] = [];
    const onTime: Entry[] = [];
    for (const entry of due) {
      const { schedule } = entry;
      const workflow = schedule.workflow.name;
      if (now - entry.next! <= this.limits.graceMs) {
        // The common case: fire the stored instant now, compute what follows after starting it.
        wanted.push({ workflow, triggerId: schedule.triggerId, fireAtMs: entry.next!, entry });
        onTime.push(entry);
        continue;
      }
      const plan = dueFires(schedule, entry.next!, now, this.limits);
      entry.next = plan.next;
      if (plan.skipped > 0) {
        this.logger.warn(
          {
            workflow,
            trigger: schedule.triggerId,
            skipped: plan.skipped,
            policy: schedule.catchup,
          },
          'schedule: missed fires skipped by the catch-up policy',
        );
      }
      for (const fireAtMs of plan.run) {
        wanted.push({ workflow, triggerId: schedule.triggerId, fireAtMs, entry });
      }
      if (plan.next !== undefined) {
        nexts.push({ workflow, triggerId: schedule.triggerId, fireAtMs: plan.next });
      }
    }
    const won = new Set(
      (await this.options.store.claimFires(wanted, now)).map(
        (f) => `${f.workflow}\u0000${f.triggerId}\u0000${f.fireAtMs}`,
      ),
    );
    const mine = wanted.filter((w) =>
      won.has(`${w.workflow}\u0000${w.triggerId}\u0000${w.fireAtMs}`),
    );
    const started = await Promise.all(mine.map((fire) => this.limit(() => this.startFire(fire))));
    for (const entry of onTime) {
      // A following fire that is already due (a per-second schedule) runs on the next tick.
      entry.next = nextFireAfter(entry.schedule, entry.next!);
      if (entry.next !== undefined) {
        nexts.push({
          workflow: entry.schedule.workflow.name,
          triggerId: entry.schedule.triggerId,
          fireAtMs: entry.next,
        });
      }
    }
    await this.options.store
      .setNextFires(nexts)
      .catch((error: unknown) =>
        this.logger.error({ err: error }, 'schedule: could not store the next fires'),
      );
    return started.filter((s): s is { workflow: string; fireAt: number } => s !== undefined);
  }

  /** Starts ticking on the clock. */
  start(): void {
    this.running = true;
    this.rearm();
  }

  /** Stops ticking; resolves when the tick in progress has finished. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.ticking;
  }

  private async startFire(
    fire: FireKey & { entry: Entry },
  ): Promise<{ workflow: string; fireAt: number } | undefined> {
    const { workflow, triggerId, fireAtMs } = fire;
    try {
      await this.options.start({
        workflow: fire.entry.schedule.workflow,
        inputs: {},
        trigger: { type: 'schedule', payload: { scheduled_at: new Date(fireAtMs).toISOString() } },
      });
      this.options.onFire?.({ workflow, triggerId, dueMs: fireAtMs, firedMs: this.clock.now() });
      return { workflow, fireAt: fireAtMs };
    } catch (error) {
      this.logger.error(
        { workflow, trigger: triggerId, fire_at: new Date(fireAtMs).toISOString(), err: error },
        'schedule: could not start the execution',
      );
      return undefined;
    }
  }

  private rearm(): void {
    if (!this.running) return;
    if (this.timer) clearTimeout(this.timer);
    let earliest = Infinity;
    for (const entries of this.entries.values()) {
      for (const e of entries) if (e.next !== undefined && e.next < earliest) earliest = e.next;
    }
    const maxSleep = this.options.maxSleepMs ?? 30_000;
    const delay = Math.max(0, Math.min(earliest - this.clock.now(), maxSleep));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.ticking = this.tick()
        .catch((error: unknown) => this.logger.error({ err: error }, 'schedule: tick failed'))
        .finally(() => this.rearm());
    }, delay);
    this.timer.unref?.();
  }
}
