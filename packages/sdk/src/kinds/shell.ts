import { spawn } from 'node:child_process';
import { BackendError, UnavailableError } from '@weft/core';
import type { ActionRun } from './action-run.js';
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
 * it is spawned directly (`shell: false`: no shell ever parses it) in its own process group, in
 * the connector file's folder, with the run's environment plus `connector.env` and
 * `action.env`. The input is written to stdin as JSON. Stdout that parses as JSON is the output;
 * otherwise the output is `{stdout, stderr, exit_code}`. A non-zero exit, a death by signal or
 * stdout over `maxOutputBytes` is `BACKEND_ERROR` (with the tail of stderr); a missing program
 * is `UNAVAILABLE`. When the signal aborts, the whole process group is killed (`SIGKILL`), so
 * that grandchildren die too.
 */
export function runShell(run: ActionRun, maxOutputBytes: number): Promise<unknown> {
  const { connector, action, input, context, call } = run;
  const scope = connectorScope(input, context);
  const argv = (action?.definition.command ?? []).map((arg) => renderText(arg, scope));
  const [program, ...args] = argv;
  if (program === undefined || program === '') {
    return Promise.reject(
      new BackendError(`${call}: the command is empty`, {
        backend: connector.name,
        original_error: 'empty command',
      }),
    );
  }
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(context.environment)) {
    if (value !== undefined) env[key] = value;
  }
  Object.assign(env, renderMap(connector.definition.connector.env, scope));
  Object.assign(env, renderMap(action?.definition.env, scope));

  return new Promise((resolve, reject) => {
    if (context.signal.aborted) return reject(abortError(context.signal));
    const child = spawn(program, args, {
      shell: false,
      detached: true,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(connector.cwd !== undefined ? { cwd: connector.cwd } : {}),
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
    context.signal.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => {
      stdout.push(chunk);
      if (!stdout.overflowed) return;
      killGroup();
      const message = `stdout is over the limit of ${maxOutputBytes} bytes`;
      finish(
        new BackendError(`${call}: ${message}`, {
          backend: connector.name,
          original_error: message,
        }),
      );
    });
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.stdin.on('error', () => {
      // the command does not read its input: not an error
    });
    child.stdin.end(JSON.stringify(input));
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'EACCES') {
        finish(
          new UnavailableError(`${call}: cannot run "${program}" (${error.code})`, {
            backend: connector.name,
            suggestion: `install ${program} or put it on PATH, or fix the command of ${call}`,
          }),
        );
      } else
        finish(
          new BackendError(`${call}: ${error.message}`, {
            backend: connector.name,
            original_error: error.message,
          }),
        );
    });
    child.on('close', (code, signal) => {
      const err = stderr.text();
      if (code !== 0) {
        const why = code === null ? `was killed by ${signal ?? 'a signal'}` : `exited with ${code}`;
        const detail = tail(err) || '(no stderr)';
        finish(
          new BackendError(`${call}: the command ${why}: ${detail}`, {
            backend: connector.name,
            original_error: detail,
            exit_code: code ?? -1,
          }),
        );
        return;
      }
      finish(undefined, parseOutput(stdout.text(), err));
    });
  });
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
