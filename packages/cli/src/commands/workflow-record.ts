import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname } from 'node:path';
import type { StreamEvent } from '@weft/core';
import { fixtureText, recordFixture, type RunResult, type WorkflowDefinition } from '@weft/engine';
import type { Io } from '../io.js';
import { AttemptLogs, sourceOfRun } from '../recording.js';

/**
 * `weft workflow run --record <file>`: watches the run's events and, when it completed, writes
 * it as a `testing` fixture named after the file (docs/workflow-language.md#record-fixtures-from-real-runs).
 */
export class RunRecorder {
  private readonly logs = new AttemptLogs();

  constructor(private readonly file: string) {}

  /**
   * Why `--record` cannot be used with these flags, or undefined: it records one run made in
   * this process.
   */
  static refusal(flags: { all?: boolean; dryRun?: boolean; async?: boolean }, mode: string) {
    if (mode !== 'local')
      return '--record records a run made here: for a run on a server, use weft execution record <id>';
    if (flags.all) return '--record records one run: pick the workflow with --workflow NAME';
    if (flags.dryRun) return '--record records a real run, not a dry run';
    return undefined;
  }

  /** The run's `observe`: every event. */
  readonly observe = (event: StreamEvent): void => this.logs.add(event);

  /** Writes the fixture of a completed run; says why not on stderr otherwise. */
  write(
    io: Io,
    workflow: WorkflowDefinition,
    inputs: Record<string, unknown>,
    result: RunResult,
  ): void {
    if (result.status !== 'completed') {
      io.err(`weft: not recorded: the run ${result.status}; only a completed run is recorded\n`);
      return;
    }
    const source = sourceOfRun(workflow, inputs, result, this.logs);
    const name = basename(this.file, extname(this.file));
    mkdirSync(dirname(this.file), { recursive: true });
    writeFileSync(this.file, fixtureText(source, recordFixture(source, name)));
    io.err(`recorded ${this.file} (fixture "${name}")\n`);
  }
}
