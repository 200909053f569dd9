import { WeftError } from '@weft/core';
import { EXIT } from './exit-codes.js';
import type { Io } from './io.js';
import { describeError } from './registry-client.js';

/**
 * Runs a command body, turning failures into a message and exit code: a registry's 4xx answer
 * is invalid input (2), anything else (unreachable registry, 5xx) a failure (1).
 */
export async function guard(
  io: Io,
  setExit: (code: number) => void,
  body: () => Promise<number>,
): Promise<void> {
  try {
    setExit(await body());
  } catch (error) {
    if (error instanceof WeftError) {
      io.err(describeError(error));
      setExit(error.httpStatus < 500 ? EXIT.invalid : EXIT.failure);
      return;
    }
    io.err(`error: ${(error as Error).message}\n`);
    setExit(EXIT.failure);
  }
}
