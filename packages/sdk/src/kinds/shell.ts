import { spawn } from 'node:child_process';
import { BackendError, UnavailableError } from '@weft/core';
import type { Breach, Cell, Sandbox, WrappedCommand } from '../sandbox/index.js';
import type { ActionRun } from './action-run.js';
import { findProgram } from './find-program.js';
import { abortError, BoundedBuffer, tail } from './errors.js';
import { connectorScope, renderMap, renderText } from './templates.js';

/** What a `shell` action answers when its stdout is not JSON. */
export interface ShellResult {
  stdout: string;
  stderr: string;
  exit_code: number;
}

/** Bytes of stderr kept (the tail). */
const STDERR_KEPT = 64 * 1024;

/**
 * Runs a `shell` action: `command` is an argv list, each item a template on the action input;
 * it is spawned directly (`shell: false`: no shell ever parses it) in its own process group,
 * inside a sandbox cell (docs/workflow-language.md#connector-runtime): its own control group
 * with the limits, its own scratch directory as working directory and `TMPDIR`, with the run's
 * environment plus `connector.env`, `action.env` and `WEFT_CONNECTOR_DIR` (the connector file's
 * folder; a program named by a relative path is found there). The input is written to stdin as
 * JSON. Stdout that parses as JSON is the output; otherwise the output is `{stdout, stderr,
 * exit_code}`. A non-zero exit, a death by signal, stdout over `maxOutputBytes` or a limit gone
 * past (`details.limit`) is `BACKEND_ERROR` (with the tail of stderr); a missing program is
 * `UNAVAILABLE`; a declared limit the host cannot enforce is `VALIDATION` before anything runs.
 * When the signal aborts, the whole process group and control group are killed (`SIGKILL`).
 */
export async function runShell(
  run: ActionRun,
  maxOutputBytes: number,
  sandbox: Sandbox,
): Promise<unknown> {
  const { connector, action, input, context, call } = run;
  const scope = connectorScope(input, context);
  const argv = (action?.definition.command ?? []).map((arg) => renderText(arg, scope));
  const [program, ...args] = argv;
  if (program === undefined || program === '') {
    throw new BackendError(`${call}: the command is empty`, {
      backend: connector.name,
      original_error: 'empty command',
    });
  }
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(context.environment)) {
    if (value !== undefined) env[key] = value;
  }
  Object.assign(env, renderMap(connector.definition.connector.env, scope));
  Object.assign(env, renderMap(action?.definition.env, scope));
  if (context.signal.aborted) throw abortError(context.signal);
  const file = await findProgram(program, connector.cwd, env['PATH']);
  if (file === undefined) {
    throw new UnavailableError(`${call}: cannot run "${program}" (ENOENT)`, {
      backend: connector.name,
      suggestion: `install ${program} or put it on PATH, or fix the command of ${call}`,
    });
  }
  const cell = sandbox.enter({
    connectorRuntime: connector.definition.connector.runtime,
    stepRuntime: run.stepRuntime,
    connector: `${connector.namespace}/${connector.name}`,
    call,
  });
  try {
    Object.assign(env, cell.environment());
    if (connector.cwd !== undefined) env['WEFT_CONNECTOR_DIR'] = connector.cwd;
    return await spawnInCell(run, cell, cell.wrap(file, args), env, maxOutputBytes);
  } finally {
    await cell.dispose();
  }
}

function spawnInCell(
  run: ActionRun,
  cell: Cell,
  command: WrappedCommand,
  env: Record<string, string>,
  maxOutputBytes: number,
): Promise<unknown> {
  const { connector, input, context, call } = run;
  const backend = connector.name;
  return new Promise((resolve, reject) => {
    if (context.signal.aborted) return reject(abortError(context.signal));
    const child = spawn(command.file, command.args, {
      shell: false,
      detached: true,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
      cwd: cell.scratch,
    });
    const stdout = new BoundedBuffer(maxOutputBytes);
    const stderr = new BoundedBuffer(STDERR_KEPT, true);
    let settled = false;
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group is already gone
      }
      cell.kill();
    };
    const finish = (error: Error | undefined, value?: unknown) => {
      if (settled) return;
      settled = true;
      context.signal.removeEventListener('abort', onAbort);
      if (error) reject(error);
      else resolve(value);
    };
    const onAbort = () => {
      killGroup();
      finish(abortError(context.signal));
    };
    const fail = (message: string, extra: Record<string, unknown> = {}) =>
      finish(
        new BackendError(`${call}: ${message}`, { backend, original_error: message, ...extra }),
      );
    context.signal.addEventListener('abort', onAbort, { once: true });
    cell.watch((breach) => {
      killGroup();
      fail(breach.reason, breachDetails(breach));
    });
    child.stdout.on('data', (chunk: Buffer) => {
      stdout.push(chunk);
      if (!stdout.overflowed) return;
      killGroup();
      fail(`stdout is over the limit of ${maxOutputBytes} bytes`);
    });
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.stdin.on('error', () => {
      // the command does not read its input: not an error
    });
    child.stdin.end(JSON.stringify(input));
    child.on('error', (error: NodeJS.ErrnoException) => fail(error.message));
    child.on('close', (code, signal) => {
      if (settled) return;
      const err = stderr.text();
      void cell.breach(code, signal, err).then((breach) => {
        if (breach) {
          const detail = tail(err);
          fail(`${breach.reason}${detail ? `: ${detail}` : ''}`, breachDetails(breach));
        } else if (code !== 0) {
          const why =
            code === null ? `was killed by ${signal ?? 'a signal'}` : `exited with ${code}`;
          const detail = tail(err) || '(no stderr)';
          finish(
            new BackendError(`${call}: the command ${why}: ${detail}`, {
              backend,
              original_error: detail,
              exit_code: code ?? -1,
            }),
          );
        } else finish(undefined, parseOutput(stdout.text(), err));
      }, finish);
    });
  });
}

/** `details` of a breach: the limit, as configured, and what was seen. */
function breachDetails(breach: Breach): Record<string, unknown> {
  return {
    limit: breach.limit,
    configured: breach.configured,
    ...(breach.observed !== undefined ? { observed: breach.observed } : {}),
  };
}

function parseOutput(stdout: string, stderr: string): unknown {
  const text = stdout.trim();
  if (text !== '') {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // plain text: answered below
    }
  }
  const result: ShellResult = { stdout, stderr, exit_code: 0 };
  return result;
}
