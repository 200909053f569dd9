import { Cron } from 'croner';
import { ValidationError, type CatchupPolicy, type ScheduleTrigger } from '@weft/core';
import { isTimeZone, type WorkflowDefinition } from '@weft/engine';

/** A schedule trigger ready to run. */
export interface CompiledSchedule {
  workflow: WorkflowDefinition;
  /** Identifies the trigger within the workflow: `<index>:<cron>@<zone>`. */
  triggerId: string;
  cron: Cron;
  timezone: string;
  catchup: CatchupPolicy;
}

/** Bounds of catching up. */
export interface CatchupLimits {
  /** A fire this late (ms) or less is on time, not missed. Default 60 s. */
  graceMs: number;
  /** Most missed fires `catchup: all` runs (the latest ones). Default 100. */
  maxCatchup: number;
}

/** Default {@link CatchupLimits}. */
export const DEFAULT_CATCHUP_LIMITS: CatchupLimits = { graceMs: 60_000, maxCatchup: 100 };

/**
 * Compiles the schedule trigger at `triggers[index]`: 5 fields (minute first) or 6 (seconds
 * first), evaluated in its IANA `timezone` (default UTC). Throws `VALIDATION` for a bad
 * expression or zone.
 */
export function compileSchedule(
  workflow: WorkflowDefinition,
  trigger: ScheduleTrigger,
  index: number,
): CompiledSchedule {
  const timezone = trigger.timezone ?? 'UTC';
  if (!isTimeZone(timezone)) {
    throw new ValidationError(
      `unknown time zone "${timezone}": expected an IANA name such as Europe/Berlin or UTC`,
      { field: `triggers[${index}].timezone`, constraint: 'timezone' },
    );
  }
  const fields = trigger.cron.trim().split(/\s+/).length;
  let cron: Cron;
  try {
    if (fields < 5 || fields > 6) throw new Error(`it has ${fields} fields, not 5 or 6`);
    cron = new Cron(trigger.cron, {
      paused: true,
      timezone,
      mode: fields === 5 ? '5-part' : '6-part',
      // Lists and ranges are fixed times too: they run once in a repeated hour (like Vixie cron).
      fixedTimeRule: 'no-wildcard',
    });
  } catch (error) {
    throw new ValidationError(
      `invalid schedule "${trigger.cron}" in ${timezone}: ${(error as Error).message}`,
      {
        field: `triggers[${index}].cron`,
        constraint: 'cron',
      },
    );
  }
  return {
    workflow,
    triggerId: `${index}:${trigger.cron.trim()}@${timezone}`,
    cron,
    timezone,
    catchup: trigger.catchup ?? 'last',
  };
}

/** The first fire strictly after `afterMs`, as epoch ms (UTC), or undefined when none is left. */
export function nextFireAfter(schedule: CompiledSchedule, afterMs: number): number | undefined {
  return schedule.cron.nextRun(new Date(afterMs))?.getTime();
}

/** The next fires of one schedule trigger of a deployed workflow, as the API shows them. */
export interface UpcomingFires {
  /** Index of the trigger in the definition's `triggers`. */
  trigger: number;
  cron: string;
  timezone: string;
  /** The next fires after now, ISO 8601 UTC, soonest first (fewer when the schedule ends). */
  at: string[];
}

/**
 * The next `count` fires after `nowMs` of every schedule trigger of a stored definition,
 * computed as the scheduler computes them ({@link compileSchedule}, {@link nextFireAfter}). A
 * trigger that no longer compiles (a time zone gone from this Node's data) lists no fire.
 */
export function upcomingFires(
  definition: Record<string, unknown>,
  nowMs: number,
  count = 3,
): UpcomingFires[] {
  const triggers = Array.isArray(definition['triggers']) ? definition['triggers'] : [];
  const upcoming: UpcomingFires[] = [];
  triggers.forEach((trigger: unknown, index) => {
    const t = trigger as Partial<ScheduleTrigger> & { type?: unknown };
    if (t?.type !== 'schedule' || typeof t.cron !== 'string') return;
    const timezone = t.timezone ?? 'UTC';
    const at: string[] = [];
    try {
      const schedule = compileSchedule(
        definition as unknown as WorkflowDefinition,
        t as ScheduleTrigger,
        index,
      );
      let from = nowMs;
      while (at.length < count) {
        const next = nextFireAfter(schedule, from);
        if (next === undefined) break;
        at.push(new Date(next).toISOString());
        from = next;
      }
    } catch {
      // Not compilable here: no fire is listed.
    }
    upcoming.push({ trigger: index, cron: t.cron.trim(), timezone, at });
  });
  return upcoming;
}

/** What is due at `nowMs`, given the stored next fire. */
export interface DueFires {
  /** Fire times to run now, oldest first. */
  run: number[];
  /** Missed fires dropped by the catch-up policy (at least this many after a long outage). */
  skipped: number;
  /** The next fire after `nowMs`. */
  next: number | undefined;
}

/** Most on-time fires one tick runs for one schedule (a per-second schedule has ~60). */
const MAX_ON_TIME = 1000;

/**
 * The fires due between the stored next fire and `nowMs`. A fire at most `graceMs` late is on
 * time and always runs; earlier ones were missed (no server ran) and follow the policy: `none`
 * drops them, `last` runs the latest one unless an on-time fire covers it, `all` runs the latest
 * `maxCatchup` of them. Missed fires are found backwards from the grace cutoff, so a long outage
 * of a per-second schedule costs no more than `maxCatchup` steps.
 */
export function dueFires(
  schedule: CompiledSchedule,
  storedNext: number,
  nowMs: number,
  limits: CatchupLimits = DEFAULT_CATCHUP_LIMITS,
): DueFires {
  const cutoff = nowMs - limits.graceMs;
  const onTime: number[] = [];
  let at = nextFireAfter(schedule, Math.max(storedNext, cutoff) - 1);
  while (at !== undefined && at <= nowMs && onTime.length < MAX_ON_TIME) {
    onTime.push(at);
    at = nextFireAfter(schedule, at);
  }
  let missed: number[] = [];
  if (storedNext < cutoff) {
    missed = schedule.cron
      .previousRuns(limits.maxCatchup + 1, new Date(cutoff))
      .map((d) => d.getTime())
      .filter((t) => t >= storedNext)
      .reverse();
  }
  let skipped = 0;
  if (missed.length > limits.maxCatchup) {
    skipped = missed.length - limits.maxCatchup;
    missed = missed.slice(skipped);
  }
  let keep: number[];
  switch (schedule.catchup) {
    case 'none':
      keep = [];
      break;
    case 'last':
      keep = onTime.length > 0 || missed.length === 0 ? [] : [missed.at(-1)!];
      break;
    case 'all':
      keep = missed;
      break;
  }
  skipped += missed.length - keep.length;
  return { run: [...keep, ...onTime], skipped, next: nextFireAfter(schedule, nowMs) };
}
