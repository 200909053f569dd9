import pLimit from 'p-limit';
import { systemClock, type Clock, type FireKey, type TriggerStore } from '@weft/core';
import { silentLogger, type TriggerLogger } from '../logger.js';
import type { PendingRecord, StartExecution, StartRequest } from '../start-execution.js';
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
  /**
   * Prepares the fires of one tick together ahead of their instant, and commits them at it (the
   * server: `Runtime.prepareExecutions`, whose records share one commit). Without it each fire
   * goes through `start` at the instant, `concurrency` at a time.
   */
  prepareStarts?: PrepareStarts;
  clock?: Clock;
  logger?: TriggerLogger;
  catchup?: Partial<CatchupLimits>;
  /** Longest sleep between ticks, ms (other replicas may have moved on). Default 30 s. */
  maxSleepMs?: number;
  /**
   * How long before a fire instant the timer wakes to claim its fires and prepare their starts
   * (ms), so that at the instant only storing them remains (like Quartz's fire-ahead window).
   * Default 100.
   */
  prepareAheadMs?: number;
  /**
   * Fires started at once through `start` (without `prepareStarts`). Default 1000: the durable
   * starts of a burst then share a few group commits instead of waiting for one after the other
   * (64 at a time doubled the lag of the last of 1,000 fires due in the same second).
   */
  concurrency?: number;
  /**
   * The active revision of every deployed workflow (the deployment store's `revisions()`), read
   * at every tick that has fires due: a schedule registered with a revision fires only while that
   * revision is still the deployed one, so that a workflow undeployed or redeployed on another
   * replica never fires here from what this replica last loaded.
   */
  deployedRevisions?: () => Promise<ReadonlyMap<string, number>>;
  /** Told about every fire this replica started (benchmarks measure precision with it). */
  onFire?: (fire: { workflow: string; triggerId: string; dueMs: number; firedMs: number }) => void;
}

/**
 * Checks many start requests and builds their records; `commit()` stores them (each succeeds
 * or fails alone) and answers their pending records.
 */
export type PrepareStarts = (requests: readonly StartRequest[]) => Promise<{
  commit(): Promise<PromiseSettledResult<PendingRecord>[]>;
}>;

interface Entry {
  /**
   * What the schedule is registered and stored under: the deployment's key (`owner/name`, so
   * that two owners' workflows of one name never share a schedule), or any name in tests.
   */
  key: string;
  schedule: CompiledSchedule;
  next: number | undefined;
  /** The deployment revision it was registered for (checked before claiming a fire). */
  revision: number | undefined;
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
  private readonly prepareStarts: PrepareStarts;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private ticking: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: SchedulerOptions) {
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger;
    this.limits = { ...DEFAULT_CATCHUP_LIMITS, ...options.catchup };
    const limit = pLimit(options.concurrency ?? 1000);
    this.prepareStarts =
      options.prepareStarts ??
      ((requests) =>
        Promise.resolve({
          commit: () => Promise.allSettled(requests.map((r) => limit(() => options.start(r)))),
        }));
  }

  /**
   * Schedules `schedules` of a workflow under `workflow` (its deployment key), replacing those
   * it had. A schedule whose next fire is
   * already stored keeps it (so fires missed while no server ran are caught up on the next
   * tick); a new one starts at its first fire after now. With `revision`, its fires are claimed
   * only while that revision is the deployed one (see `deployedRevisions`).
   */
  async register(
    workflow: string,
    schedules: readonly CompiledSchedule[],
    revision?: number,
  ): Promise<void> {
    const now = this.clock.now();
    const entries: Entry[] = [];
    for (const schedule of schedules) {
      const stored = await this.options.store.getNextFire(workflow, schedule.triggerId);
      const next = stored ?? nextFireAfter(schedule, now);
      if (stored === undefined && next !== undefined) {
        await this.options.store.setNextFire(workflow, schedule.triggerId, next);
      }
      entries.push({ key: workflow, schedule, next, revision });
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
   * Runs every due fire: plans each due schedule (catch-up policy), claims all their fires in
   * one statement, starts the won ones together and stores every next fire in one statement.
   * `at` (a fire instant a little ahead of the clock) claims the fires due then at once and
   * starts them at that instant. Resolves with the fires this replica started.
   */
  async tick(at?: number): Promise<{ workflow: string; fireAt: number }[]> {
    const claimedAt = this.clock.now();
    const now = Math.max(claimedAt, at ?? claimedAt);
    const due = await this.stillDeployed(
      [...this.entries.values()].flat().filter((e) => e.next !== undefined && e.next <= now),
    );
    if (due.length === 0) return [];
    const wanted: (FireKey & { entry: Entry })[] = [];
    const nexts: FireKey[] = [];
    const onTime: Entry[] = [];
    for (const entry of due) {
      const { schedule } = entry;
      const workflow = entry.key;
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
            workflow: schedule.workflow.name,
            deployment: workflow,
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
      (await this.options.store.claimFires(wanted, claimedAt)).map(
        (f) => `${f.workflow}\u0000${f.triggerId}\u0000${f.fireAtMs}`,
      ),
    );
    const mine = wanted.filter((w) =>
      won.has(`${w.workflow}\u0000${w.triggerId}\u0000${w.fireAtMs}`),
    );
    const started = await this.startFires(mine, now);
    // Schedules sharing an expression and zone (and last fire) share the computation.
    const following = new Map<string, number | undefined>();
    for (const entry of onTime) {
      // A following fire that is already due (a per-second schedule) runs on the next tick.
      const key = `${entry.schedule.cron.getPattern()}@${entry.schedule.timezone}@${entry.next!}`;
      if (!following.has(key)) following.set(key, nextFireAfter(entry.schedule, entry.next!));
      entry.next = following.get(key);
      if (entry.next !== undefined) {
        nexts.push({
          workflow: entry.key,
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
    return started;
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

  /**
   * The due entries whose registered revision is still the deployed one. The others were
   * undeployed or redeployed elsewhere: they stop here (their next fires are neither claimed nor
   * stored again) until this replica reconciles and registers the current revision.
   */
  private async stillDeployed(due: Entry[]): Promise<Entry[]> {
    if (!this.options.deployedRevisions || due.every((e) => e.revision === undefined)) return due;
    const current = await this.options.deployedRevisions();
    const stale = new Set<string>();
    for (const e of due) {
      if (e.revision !== undefined && current.get(e.key) !== e.revision) stale.add(e.key);
    }
    for (const workflow of stale) {
      this.entries.delete(workflow);
      this.logger.info(
        { workflow },
        'schedule: the workflow was undeployed or redeployed elsewhere; not fired here',
      );
    }
    return due.filter((e) => !stale.has(e.key));
  }

  /**
   * Prepares the won fires together, waits for their instant `at` when it is still ahead, and
   * starts them; logs the ones that could not start.
   */
  private async startFires(
    fires: readonly (FireKey & { entry: Entry })[],
    at: number,
  ): Promise<{ workflow: string; fireAt: number }[]> {
    if (fires.length === 0) return [];
    const prepared = await this.prepareStarts(
      fires.map(({ entry, fireAtMs }) => ({
        workflow: entry.schedule.workflow,
        deployment: entry.key,
        inputs: {},
        trigger: { type: 'schedule', payload: { scheduled_at: new Date(fireAtMs).toISOString() } },
      })),
    );
    // Never before the instant (a timer may wake a little early).
    for (let early = at - this.clock.now(); early > 0; early = at - this.clock.now()) {
      await this.clock.sleep(early);
    }
    const results = await prepared.commit();
    const firedMs = this.clock.now();
    const started: { workflow: string; fireAt: number }[] = [];
    results.forEach((result, i) => {
      const { entry, triggerId, fireAtMs } = fires[i]!;
      const workflow = entry.schedule.workflow.name;
      if (result.status === 'fulfilled') {
        this.options.onFire?.({ workflow, triggerId, dueMs: fireAtMs, firedMs });
        started.push({ workflow, fireAt: fireAtMs });
        return;
      }
      this.logger.error(
        {
          workflow,
          trigger: triggerId,
          fire_at: new Date(fireAtMs).toISOString(),
          err: result.reason,
        },
        'schedule: could not start the execution',
      );
    });
    return started;
  }

  private rearm(): void {
    if (!this.running) return;
    if (this.timer) clearTimeout(this.timer);
    let earliest = Infinity;
    for (const entries of this.entries.values()) {
      for (const e of entries) if (e.next !== undefined && e.next < earliest) earliest = e.next;
    }
    const maxSleep = this.options.maxSleepMs ?? 30_000;
    const ahead = this.options.prepareAheadMs ?? 100;
    const delay = Math.max(0, Math.min(earliest - ahead - this.clock.now(), maxSleep));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const target = earliest - this.clock.now() <= ahead ? earliest : undefined;
      this.ticking = this.tick(target)
        .catch((error: unknown) => this.logger.error({ err: error }, 'schedule: tick failed'))
        .finally(() => this.rearm());
    }, delay);
    this.timer.unref?.();
  }
}
