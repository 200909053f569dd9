import type { StreamEvent } from '@weft/core';
import type { RunResult } from '@weft/sdk';
import type { Io } from '../io.js';
import { paint } from '../style.js';

/** Shows the steps of a text-mode run on the terminal as they start and end. */
export interface RunProgress {
  /** The run's event listener (`ExecuteOptions.onEvent`). */
  onEvent: (event: StreamEvent) => void;
  /** Whether every step the result lists was shown already (the summary need not list them). */
  showedSteps: () => boolean;
}

/**
 * Live progress on stderr, for a terminal (`io.live`): the execution id when the run starts,
 * `… name` when a step starts, replaced in place by `✓ name  1234 ms` (or `✗`, with the error
 * under it) when it ends, or printed anew when other lines came in between (parallel steps).
 * Undefined when stderr is not a terminal: the summary then says it all.
 */
export function runProgress(io: Io, workflow: string): RunProgress | undefined {
  if (!io.live) return undefined;
  let announced = false;
  let pending: string | undefined;
  const line = (text: string) => io.err(`${text}\n`);
  return {
    onEvent(event) {
      if (!announced) {
        announced = true;
        line(`running ${workflow} (execution ${event.workflow_id})`);
      }
      const step = event.step_name;
      if (step === undefined) return;
      if (event.type === 'step.started') {
        line(`  … ${step}`);
        pending = step;
        return;
      }
      if (event.type !== 'step.completed' && event.type !== 'step.failed') return;
      const failed = event.type === 'step.failed';
      const status = failed ? 'failed' : String(event.data['status']);
      const mark = failed ? '✗' : status === 'skipped' ? '-' : '✓';
      const tries = Number(event.data['attempts'] ?? 1);
      const text = `  ${mark} ${step}  ${String(event.data['duration_ms'] ?? '?')} ms${tries > 1 ? ` (${tries} calls)` : ''}`;
      // Replace the step's own "started" line when nothing was printed after it.
      if (pending === step) io.err('\x1b[1A\x1b[2K');
      pending = undefined;
      line(failed ? paint(io, 'red', text) : text);
      if (failed) {
        const error = event.data['error'] as { code?: string; message?: string } | undefined;
        if (error) line(`      ${error.code ?? 'ERROR'}: ${error.message ?? ''}`);
      }
    },
    showedSteps: () => announced,
  };
}

/** Whether `result`'s error is the error of one of its failed steps (shown with that step). */
export function errorOfAStep(result: RunResult): boolean {
  const error = result.error;
  if (!error) return false;
  return Object.values(result.steps).some(
    (step) =>
      step.status === 'failed' &&
      step.error !== undefined &&
      step.error.code === error.code &&
      error.message.includes(step.error.message),
  );
}
