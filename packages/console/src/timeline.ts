import type { ExecutionEvent, ExecutionRecord } from '@weft/sdk/client';

/** One step as the run page shows it. */
export interface StepView {
  /** Its path: `fetch`, `fan_out/fetch` (a step inside parallel or for_each). */
  name: string;
  /** Nesting depth (parallel branches and for_each iterations are deeper). */
  depth: number;
  status: string;
  attempts?: number;
  durationMs?: number;
  startedAt?: string;
  /** The input it was given, secrets masked by the server (`***`). */
  input?: unknown;
  output?: unknown;
  error?: unknown;
  /** Each attempt's span when it was retried (`attempt_log` of its end event). */
  attemptLog?: AttemptSpan[];
  /** Its last `step.progress` report. */
  progress?: { percent?: number; message?: string; at: string };
}

/** One attempt of a retried step. */
export interface AttemptSpan {
  started_at: string;
  finished_at: string;
  /** The `for_each` item (0-based) it was an attempt of. */
  item?: number;
  error_code?: string;
}

/**
 * The steps of a run from its event log, in the order they started. A step that starts again
 * under the same path (a for_each iteration) gets an entry of its own, labelled `path [n]`; an
 * end closes the oldest open entry of its path.
 */
export function stepsFromEvents(events: readonly ExecutionEvent[]): StepView[] {
  const steps: StepView[] = [];
  const open = new Map<string, StepView[]>();
  const seen = new Map<string, number>();
  const start = (event: ExecutionEvent): StepView => {
    const count = (seen.get(event.step_name) ?? 0) + 1;
    seen.set(event.step_name, count);
    const step: StepView = {
      name: count > 1 ? `${event.step_name} [${count}]` : event.step_name,
      depth: depthOf(event.step_name),
      status: 'running',
      startedAt: event.timestamp,
    };
    steps.push(step);
    open.set(event.step_name, [...(open.get(event.step_name) ?? []), step]);
    return step;
  };
  for (const event of events) {
    if (!event.type.startsWith('step.') || !event.step_name) continue;
    if (event.type === 'step.started') {
      start(event);
      continue;
    }
    const step = open.get(event.step_name)?.[0] ?? start(event);
    const data = event.data;
    if (typeof data['attempts'] === 'number') step.attempts = data['attempts'];
    if (typeof data['duration_ms'] === 'number') step.durationMs = data['duration_ms'];
    if (event.type === 'step.progress') {
      step.progress = {
        ...(typeof data['percent'] === 'number' ? { percent: data['percent'] } : {}),
        ...(typeof data['message'] === 'string' ? { message: data['message'] } : {}),
        at: event.timestamp,
      };
      continue;
    }
    if (Array.isArray(data['attempt_log'])) step.attemptLog = data['attempt_log'] as AttemptSpan[];
    if ('input' in data) step.input = data['input'];
    if (event.type === 'step.completed') {
      step.status = typeof data['status'] === 'string' ? data['status'] : 'success';
      step.output = 'output' in data ? data['output'] : data['outputs'];
    } else if (event.type === 'step.failed') {
      // A step stopped by a cancellation ends `canceled` (its event is step.failed, code CANCELED).
      const code = (data['error'] as { code?: unknown } | undefined)?.code;
      step.status = code === 'CANCELED' ? 'canceled' : 'failed';
      step.error = data['error'];
    }
    open.set(
      event.step_name,
      (open.get(event.step_name) ?? []).filter((s) => s !== step),
    );
  }
  return steps;
}

/** The steps of an ended run from its record (when the event log has none). */
export function stepsFromRecord(record: ExecutionRecord): StepView[] {
  return Object.entries(record.result?.steps ?? {}).map(([name, entry]) => {
    const value = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<
      string,
      unknown
    >;
    return {
      name,
      depth: 0,
      status: typeof value['status'] === 'string' ? value['status'] : 'success',
      ...(typeof value['started_at'] === 'string' ? { startedAt: value['started_at'] } : {}),
      ...(typeof value['duration_ms'] === 'number' ? { durationMs: value['duration_ms'] } : {}),
      ...(typeof value['attempts'] === 'number' ? { attempts: value['attempts'] } : {}),
      ...('input' in value ? { input: value['input'] } : {}),
      output: 'output' in value ? value['output'] : value['outputs'],
      ...(value['error'] !== undefined ? { error: value['error'] } : {}),
    };
  });
}

function depthOf(path: string): number {
  return (path.match(/\//g) ?? []).length;
}
