import { CanceledError, type ExecutionRecord, type StreamEvent } from '@weft/core';
import type { Io } from '../io.js';
import type { RunMode } from './run-support.js';

/** Signals that interrupt `weft workflow run`, and the exit status of each (128 + its number). */
export const INTERRUPT_EXIT = { SIGINT: 130, SIGTERM: 143 } as const;
type InterruptSignal = keyof typeof INTERRUPT_EXIT;

/** Options of {@link RunInterrupts}. */
export interface RunInterruptOptions {
  mode: RunMode;
  /** The server of a `--cloud` run, named in the hints to follow or cancel it. */
  server?: string;
  /** How long a canceled local run may take to end before the command exits anyway. Default 5000 ms. */
  graceMs?: number;
  /** Ends the process (default `process.exit`); tests replace it. */
  exit?: (code: number) => void;
  /** Where the signals come from (default `process`). */
  signals?: Pick<NodeJS.Process, 'on' | 'off'>;
}

/**
 * What `weft workflow run` does on SIGINT (Ctrl-C) and SIGTERM. Runs on this machine (local,
 * `--router`, hybrid) are canceled through {@link signal}: every action in flight gets its abort
 * signal, so a shell connector's whole process group is killed, and the command prints which
 * steps were interrupted, lets the run end `canceled` and exits 130 (SIGINT) or 143 (SIGTERM).
 * A run that does not end within `graceMs`, or a second signal, exits at once. A `--cloud` run
 * is not canceled: the command prints its execution id with the commands that follow or cancel
 * it, and exits.
 */
export class RunInterrupts {
  private readonly controller = new AbortController();
  private readonly running = new Set<string>();
  private workflow = '';
  private executionId: string | undefined;
  private received: InterruptSignal | undefined;
  private readonly exit: (code: number) => void;
  private readonly signals: Pick<NodeJS.Process, 'on' | 'off'>;

  constructor(
    private readonly io: Io,
    private readonly options: RunInterruptOptions,
  ) {
    this.exit = options.exit ?? ((code) => process.exit(code));
    this.signals = options.signals ?? process;
    this.signals.on('SIGINT', this.onSignal);
    this.signals.on('SIGTERM', this.onSignal);
  }

  /** Aborted on the first signal in local modes: pass it as the run's `signal`. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The exit status owed to the signal received, if any. */
  get exitCode(): number | undefined {
    return this.received === undefined ? undefined : INTERRUPT_EXIT[this.received];
  }

  /** A run of `workflow` starts: forget the steps and execution of the previous one. */
  begin(workflow: string): void {
    this.workflow = workflow;
    this.running.clear();
    this.executionId = undefined;
  }

  /** Follows which steps are running (pass every event of the run). */
  readonly onEvent = (event: StreamEvent): void => {
    if (event.type === 'step.started') this.running.add(event.step_name);
    else if (event.type === 'step.completed' || event.type === 'step.failed')
      this.running.delete(event.step_name);
  };

  /** `--cloud`: the server accepted the run. */
  readonly onStarted = (record: ExecutionRecord): void => {
    this.executionId = record.execution_id;
  };

  /** Stops listening for signals. */
  dispose(): void {
    this.signals.off('SIGINT', this.onSignal);
    this.signals.off('SIGTERM', this.onSignal);
  }

  private readonly onSignal = (name: NodeJS.Signals): void => {
    const signal: InterruptSignal = name === 'SIGTERM' ? 'SIGTERM' : 'SIGINT';
    const code = INTERRUPT_EXIT[signal];
    if (this.received !== undefined) {
      this.io.err(`weft: ${signal} again: exiting now\n`);
      this.exit(code);
      return;
    }
    this.received = signal;
    if (this.options.mode === 'cloud') {
      this.io.err(this.detached(signal));
      this.exit(code);
      return;
    }
    const steps = [...this.running];
    this.io.err(
      `weft: interrupted by ${signal}: canceling workflow "${this.workflow}"; ` +
        (steps.length > 0
          ? `interrupted step${steps.length > 1 ? 's' : ''}: ${steps.join(', ')}\n`
          : 'no step was running\n'),
    );
    // Synchronous all the way down: a shell command's process group is killed before this returns.
    this.controller.abort(
      new CanceledError(`interrupted by ${signal}`, { canceled_at: new Date().toISOString() }),
    );
    const grace = this.options.graceMs ?? 5000;
    setTimeout(() => {
      this.io.err(`weft: the run did not end within ${grace} ms of ${signal}; exiting\n`);
      this.exit(code);
    }, grace).unref();
  };

  /** What a `--cloud` run interrupted here tells: it runs on, and how to follow or cancel it. */
  private detached(signal: InterruptSignal): string {
    const server = this.options.server ? ` --server ${this.options.server}` : '';
    const where = this.options.server ?? 'the server';
    if (this.executionId === undefined) {
      return (
        `weft: interrupted by ${signal} before ${where} answered: if workflow "${this.workflow}" ` +
        'started there, it runs on (it was not canceled)\n'
      );
    }
    const id = this.executionId;
    return (
      `weft: interrupted by ${signal}: execution ${id} of workflow "${this.workflow}" runs on at ${where} (it was not canceled)\n` +
      `  follow it: weft execution wait ${id}${server}\n` +
      `  cancel it: weft execution cancel ${id}${server}\n`
    );
  }
}
