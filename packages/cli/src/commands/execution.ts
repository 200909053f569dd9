import type { Command } from 'commander';
import type { Io } from '../io.js';
import { registerExecutionControl } from './execution-control.js';
import { registerExecutionDecisions } from './execution-decide.js';
import { registerExecutionEvents } from './execution-events.js';
import { registerExecutionFollow } from './execution-follow.js';
import { registerExecutionReads } from './execution-list.js';
import { registerExecutionRecord } from './execution-record.js';

/**
 * `weft execution ...`: commands on one execution of a weft server (`--server`, `--api-key`).
 * Each subcommand lives in its own file and registers itself here; returns every command added,
 * so that the caller configures their output and exit handling like the others.
 */
export function registerExecution(
  program: Command,
  io: Io,
  setExit: (code: number) => void,
): Command[] {
  const execution = program.command('execution');
  registerExecutionReads(execution, io, setExit);
  registerExecutionEvents(execution, io, setExit);
  registerExecutionControl(execution, io, setExit);
  registerExecutionDecisions(execution, io, setExit);
  registerExecutionFollow(execution, io, setExit);
  registerExecutionRecord(execution, io, setExit);
  return [execution, ...execution.commands];
}
