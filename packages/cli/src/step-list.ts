import type { StreamEvent } from '@weft/core';

/** A step as the events of its execution tell it. */
export interface StepLine {
  name: string;
  status: 'running' | 'success' | 'failed' | 'skipped';
  /** Milliseconds since the epoch of its `step.started`. */
  startedMs: number;
  durationMs?: number;
  attempts?: number;
  /** The last `step.progress` (percent and message). */
  progress?: string;
  /** `CODE: message` of a failed step. */
  error?: string;
}

/** How the execution ended (`workflow.completed`). */
export interface RunEnd {
  status: string;
  durationMs?: number;
  error?: string;
}

/** Spinner frames of a running step. */
const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * The steps of one execution built from its events (in order): what `weft execution events
 * --follow` draws on a terminal, and `weft execution get` prints for a run not yet ended.
 */
export class StepList {
  readonly steps = new Map<string, StepLine>();
  /** What the execution waits for (an approval), while it waits. */
  waiting: string | undefined;
  end: RunEnd | undefined;

  apply(event: StreamEvent): void {
    const at = Date.parse(event.timestamp);
    const data = event.data;
    const step = this.steps.get(event.step_name);
    switch (event.type) {
      case 'step.started':
        this.waiting = undefined;
        this.steps.set(event.step_name, {
          name: event.step_name,
          status: 'running',
          startedMs: at,
        });
        return;
      case 'step.progress': {
        if (!step) return;
        const percent = typeof data['percent'] === 'number' ? `${data['percent']}%` : '';
        const message = typeof data['message'] === 'string' ? data['message'] : '';
        step.progress = [percent, message].filter((part) => part !== '').join(' ');
        return;
      }
      case 'step.completed':
      case 'step.failed': {
        const line = step ?? { name: event.step_name, status: 'running', startedMs: at };
        line.status =
          event.type === 'step.failed'
            ? 'failed'
            : data['status'] === 'skipped'
              ? 'skipped'
              : 'success';
        if (typeof data['duration_ms'] === 'number') line.durationMs = data['duration_ms'];
        if (typeof data['attempts'] === 'number') line.attempts = data['attempts'];
        if (event.type === 'step.failed') line.error = errorText(data['error']);
        delete line.progress;
        this.steps.set(event.step_name, line);
        return;
      }
      case 'workflow.completed':
        this.waiting = undefined;
        this.end = {
          status: typeof data['status'] === 'string' ? data['status'] : 'completed',
          ...(typeof data['duration_ms'] === 'number' ? { durationMs: data['duration_ms'] } : {}),
          ...(data['error'] !== undefined ? { error: errorText(data['error']) } : {}),
        };
        return;
      default:
        if (event.type.endsWith('.requested')) this.waiting = event.type.split('.')[0];
        else if (event.type.endsWith('.granted')) this.waiting = undefined;
    }
  }

  /** The list as lines at `nowMs` (running steps show their time so far); `frame` turns the spinner. */
  lines(nowMs: number, frame: number): string[] {
    const width = Math.max(4, ...[...this.steps.keys()].map((name) => name.length));
    const lines = [...this.steps.values()].map((step) => {
      const mark =
        step.status === 'running'
          ? SPINNER[frame % SPINNER.length]!
          : step.status === 'success'
            ? '✓'
            : step.status === 'skipped'
              ? '-'
              : '✗';
      const took = step.durationMs ?? Math.max(0, nowMs - step.startedMs);
      const tail = [
        formatDuration(took),
        step.attempts !== undefined && step.attempts > 1 ? `${step.attempts} attempts` : '',
        step.status === 'skipped' ? 'skipped' : '',
        step.progress ?? '',
        step.error ?? '',
      ].filter((part) => part !== '');
      return `${mark} ${step.name.padEnd(width)}  ${tail.join('  ')}`;
    });
    if (this.waiting !== undefined) lines.push(`… waiting for ${this.waiting}`);
    if (this.end) {
      const took =
        this.end.durationMs !== undefined ? ` in ${formatDuration(this.end.durationMs)}` : '';
      lines.push(`${this.end.status}${took}${this.end.error ? `: ${this.end.error}` : ''}`);
    }
    return lines;
  }
}

/** `850ms`, `1.2s`, `3m05s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
}

/** `CODE: message` of an error object (or what there is of one). */
export function errorText(error: unknown): string {
  if (typeof error !== 'object' || error === null) return String(error ?? '');
  const { code, message } = error as { code?: unknown; message?: unknown };
  return [code, message].filter((part) => typeof part === 'string' && part !== '').join(': ');
}
