import type { Io } from './io.js';
import { buildProgram, main } from './main.js';

// Commands load their modules when first used; load them all now, so that no test pays for it.
await buildProgram({ out: () => {}, err: () => {}, color: false }, () => {});

/** What a command run printed and how it exited. */
export interface RunResult {
  code: number;
  out: string;
  err: string;
  /** The questions asked on the (pretend) terminal, in order. */
  asked: string[];
}

/** Runs `weft ...args` in-process, capturing its output; stdin is not a terminal. */
export async function run(...args: string[]): Promise<RunResult> {
  return runAnswering(undefined, ...args);
}

/**
 * Runs `weft ...args` in-process as {@link run} does, with a terminal on stdin where each
 * question is answered with the next of `answers` (no terminal when `answers` is undefined).
 */
export async function runAnswering(
  answers: string[] | undefined,
  ...args: string[]
): Promise<RunResult> {
  let out = '';
  let err = '';
  const asked: string[] = [];
  const io: Io = {
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    color: false,
    ...(answers
      ? {
          ask: async (question: string) => {
            asked.push(question);
            return answers.shift() ?? '';
          },
        }
      : {}),
  };
  const code = await main(['node', 'weft', ...args], io);
  return { code, out, err, asked };
}
