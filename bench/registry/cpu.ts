/** CPU time of a process, read from Linux's /proc (undefined elsewhere). */
import { readdirSync, readFileSync } from 'node:fs';

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

/** The CPU ms of each PostgreSQL process on this machine, by pid; undefined without /proc. */
function postgresCpuByPid(): Map<string, number> | undefined {
  const found = new Map<string, number>();
  try {
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        if (stat.includes(' (postgres) ')) found.set(pid, ticksMs(stat));
      } catch {
        // gone since the listing
      }
    }
  } catch {
    return undefined;
  }
  return found;
}

/**
 * Starts counting the CPU of PostgreSQL's processes on this machine (its backends and background
 * workers): the returned function gives the ms they used since, counting those alive when it is
 * called (one that ended in between is missed; one that began counts whole). Meant for a
 * database that serves the benchmark alone: other clients' work counts too. Undefined where
 * /proc cannot be read.
 */
export function postgresCpuMeter(): (() => number | undefined) | undefined {
  const before = postgresCpuByPid();
  if (!before) return undefined;
  return () => {
    const after = postgresCpuByPid();
    if (!after) return undefined;
    let used = 0;
    for (const [pid, ms] of after) used += ms - Math.min(ms, before.get(pid) ?? 0);
    return used;
  };
}
