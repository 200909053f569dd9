import { createInterface } from 'node:readline/promises';

/** Where a command writes: the process streams, or buffers in tests. */
export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Whether to color output. */
  color: boolean;
  /**
   * Whether stdout and stderr are a terminal that may be redrawn: runs show their steps live
   * there; JSON lines or plain lines otherwise (absent: no).
   */
  live?: boolean;
  /**
   * Asks the person at the terminal a question and resolves to the line they type; absent when
   * stdin is not a terminal (nobody to ask). Rejects when `signal` fires first.
   */
  ask?: (question: string, signal: AbortSignal) => Promise<string>;
}

/**
 * The process's own streams; questions go to stderr, so stdout stays machine-readable. A reader
 * that stops early (`weft execution events <id> | head -1`) ends the command quietly with exit
 * 0, as `git log | head` does, instead of an `EPIPE` error and its stack.
 */
export function processIo(): Io {
  endQuietlyOnClosedPipe();
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    color: Boolean(process.stdout.isTTY) && process.env['NO_COLOR'] === undefined,
    live:
      Boolean(process.stdout.isTTY) &&
      Boolean(process.stderr.isTTY) &&
      process.env['TERM'] !== 'dumb',
    ...(process.stdin.isTTY ? { ask: askOnTerminal } : {}),
  };
}

/**
 * One question on the terminal. End of input (Ctrl-D) is an empty answer; Ctrl-C rejects
 * (readline would otherwise only pause the input and leave the question waiting).
 */
async function askOnTerminal(question: string, signal: AbortSignal): Promise<string> {
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await new Promise<string>((resolve, reject) => {
      terminal.once('close', () => resolve(''));
      terminal.once('SIGINT', () => reject(new Error('interrupted: the run was not approved')));
      terminal.question(question, { signal }).then(resolve, reject);
    });
  } finally {
    terminal.close();
  }
}

let watchingPipes = false;

/** Once per process: a closed stdout exits 0 at once; a closed stderr is ignored. */
function endQuietlyOnClosedPipe(): void {
  if (watchingPipes) return;
  watchingPipes = true;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    // Nobody reads what follows: stop here, as the reader asked (no message to nowhere).
    process.exit(0);
  });
  process.stderr.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}
