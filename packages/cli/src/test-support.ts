import type { Io } from './io.js';
import { main } from './main.js';

/** What a command run printed and how it exited. */
export interface RunResult {
  code: number;
  out: string;
  err: string;
}

/** Runs `weft ...args` in-process, capturing its output. */
export async function run(...args: string[]): Promise<RunResult> {
  let out = '';
  let err = '';
  const io: Io = { out: (t) => void (out += t), err: (t) => void (err += t), color: false };
  const code = await main(['node', 'weft', ...args], io);
  return { code, out, err };
}
