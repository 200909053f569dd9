import type { StepView } from '../timeline.js';

/** One bar of the run's timeline. */
export interface Bar {
  /** The step's path (`data-step`), or `approval` for the wait before the run. */
  step: string;
  label: string;
  kind: 'step' | 'attempt' | 'wait';
  status: string;
  /** 1-based, on the bars of a retried step. */
  attempt?: number;
  start: number;
  end: number;
}

/** What the timeline draws: its bars, one row each, and the span of its axis. */
export interface Gantt {
  bars: Bar[];
  from: number;
  to: number;
}

/** A wait of the run (for an approval, an event): from `since` to `until` (or now). */
export interface Wait {
  kind: string;
  since: string;
  until?: string | null;
}

/**
 * The bars of a run at `now`: one per step, or one per attempt of a step that was retried, and
 * one per wait, on one time axis. A step still running ends at `now`.
 */
export function ganttOf(steps: readonly StepView[], waits: readonly Wait[], now: number): Gantt {
  const bars: Bar[] = [];
  for (const wait of waits) {
    const start = Date.parse(wait.since);
    const end = wait.until ? Date.parse(wait.until) : now;
    if (Number.isNaN(start) || Number.isNaN(end)) continue;
    bars.push({
      step: wait.kind,
      label: `waiting for ${wait.kind}`,
      kind: 'wait',
      status: 'waiting',
      start,
      end: Math.max(start, end),
    });
  }
  for (const step of steps) {
    if (!step.startedAt) continue;
    const start = Date.parse(step.startedAt);
    if (Number.isNaN(start)) continue;
    const path = step.name.replace(/ \[\d+\]$/, '');
    const log = step.attemptLog ?? [];
    if (log.length > 1) {
      const tries = new Map<number | undefined, number>();
      log.forEach((span, i) => {
        const from = Date.parse(span.started_at);
        const to = Date.parse(span.finished_at);
        const attempt = (tries.get(span.item) ?? 0) + 1;
        tries.set(span.item, attempt);
        const item = span.item !== undefined ? ` [${span.item}]` : '';
        bars.push({
          step: path,
          label: `${step.name}${item}${attempt > 1 || span.error_code ? ` #${attempt}` : ''}`,
          kind: 'attempt',
          status: span.error_code ? 'failed' : step.status,
          attempt: i + 1,
          start: from,
          end: Math.max(from, to),
        });
      });
      continue;
    }
    const end =
      step.durationMs !== undefined
        ? start + step.durationMs
        : step.status === 'running'
          ? now
          : start;
    bars.push({ step: path, label: step.name, kind: 'step', status: step.status, start, end });
  }
  const from = Math.min(...bars.map((b) => b.start));
  const to = Math.max(...bars.map((b) => b.end), from + 1);
  return { bars, from: Number.isFinite(from) ? from : now, to: Number.isFinite(to) ? to : now + 1 };
}

/** About five round tick offsets (ms from the axis start) for a span of `ms`. */
export function ticksOf(ms: number): number[] {
  const steps = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000];
  const minute = [60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000, 7_200_000];
  const every = [...steps, ...minute].find((s) => ms / s <= 5) ?? 86_400_000;
  const ticks: number[] = [];
  for (let t = 0; t <= ms; t += every) ticks.push(t);
  return ticks;
}
