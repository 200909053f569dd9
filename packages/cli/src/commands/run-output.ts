import type { RunResult } from '@weft/sdk';
import type { Io } from '../io.js';
import { paint } from '../style.js';
import { errorOfAStep } from './run-progress.js';

/** The `--output json` document of one run (a contract: scripts parse it, so fields are only ever added). */
export function runDocument(result: RunResult): Record<string, unknown> {
  const steps: Record<string, unknown> = {};
  for (const [name, step] of Object.entries(result.steps)) {
    steps[name] = {
      status: step.status,
      ...(step.output !== undefined ? { output: step.output } : {}),
      ...(step.outputs !== undefined ? { outputs: step.outputs } : {}),
      ...(step.error !== undefined ? { error: step.error } : {}),
      attempts: step.attempts,
      duration_ms: step.duration_ms,
    };
  }
  return {
    workflow: result.workflow,
    execution_id: result.execution_id,
    status: result.status,
    outputs: result.outputs,
    steps,
    ...(result.error ? { error: result.error } : {}),
    duration_ms: result.duration_ms,
    ...(result.mocked_steps ? { mocked_steps: result.mocked_steps } : {}),
  };
}

/**
 * A dry run's note on stderr: one line per step a mock answered (nothing was called for it),
 * or that none was; nothing for a real run.
 */
export function printMocked(io: Io, result: RunResult): void {
  const mocked = result.mocked_steps;
  if (mocked === undefined) return;
  if (mocked.length === 0) io.err('dry run: no step was answered by a mock\n');
  for (const m of mocked)
    io.err(
      `dry run: step ${m.step} mocked (${m.target} ${m.action}, from testing.dryRun.mockData)\n`,
    );
}

/**
 * A readable summary: status and execution id, each step with its timing (unless the live
 * progress showed them: `stepsShown`), the outputs or the error, said once: a failed step's
 * error under that step, the run's error only when no step holds it.
 */
export function printRun(io: Io, result: RunResult, stepsShown = false): void {
  const ok = result.status === 'completed';
  io.out(
    `${paint(io, ok ? 'green' : 'red', `${result.workflow} ${result.status}`)} in ${result.duration_ms} ms (execution ${result.execution_id})\n`,
  );
  if (!stepsShown) printSteps(io, result);
  if (result.error) {
    if (!errorOfAStep(result))
      io.err(`${paint(io, 'red', `error ${result.error.code}`)}: ${result.error.message}\n`);
  } else if (Object.keys(result.outputs).length > 0) {
    io.out('outputs:\n');
    for (const [name, value] of Object.entries(result.outputs))
      io.out(`  ${name}: ${JSON.stringify(value)}\n`);
  }
}

function printSteps(io: Io, result: RunResult): void {
  const names = Object.keys(result.steps);
  const width = Math.max(4, ...names.map((n) => n.length));
  for (const [name, step] of Object.entries(result.steps)) {
    const mark = step.status === 'success' ? '✓' : step.status === 'skipped' ? '-' : '✗';
    const tries = step.attempts > 1 ? ` (${step.attempts} calls)` : '';
    const line = `  ${mark} ${name.padEnd(width)}  ${step.status.padEnd(7)}  ${String(step.duration_ms).padStart(5)} ms${tries}`;
    io.out(`${step.status === 'failed' ? paint(io, 'red', line) : line}\n`);
    if (step.error) io.out(`      ${step.error.code}: ${step.error.message}\n`);
  }
}
