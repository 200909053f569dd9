/** CPU time of a process, read from Linux's /proc (undefined elsewhere). */
import { readFileSync } from 'node:fs';

/** utime + stime of a `stat` line, in ms (clock ticks of 10 ms). */
function ticksMs(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The CPU ms of all threads of `pid`, and of its main thread (the event loop's) alone. */
export function processCpuMs(pid: number): { process: number; main: number } | undefined {
  try {
    return {
      process: ticksMs(readFileSync(`/proc/${pid}/stat`, 'utf8')),
      main: ticksMs(readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8')),
    };
  } catch {
    return undefined;
  }
}
