/**
 * Child processes of the scale benchmark (run from source, like `test/faults`) and the CPU time
 * of processes read from `/proc`, so that the table shows which process was busy.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** Clock ticks per second of `/proc/<pid>/stat` (USER_HZ; 100 on Linux). */
const TICKS = 100;

/** A child that printed `listening on <url>`. */
export interface Child {
  readonly url: string;
  readonly child: ChildProcess;
  readonly output: () => string;
}

/** Runs `bench/scale/<file>` with `env` added and waits for its `listening on` line. */
export async function startChild(file: string, env: Record<string, string>): Promise<Child> {
  const script = `${root}bench/scale/${file}`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=source', script], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${file} did not start: ${out}`)), 60_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${file} exited (${code ?? signal}): ${out}`));
    });
  }).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  return { url, child, output: () => out };
}

/** Sends SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
export async function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** User + system CPU seconds a process has used; 0 when it is gone or unreadable. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the `(comm)`: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return 0;
  }
}

/** The pids of processes whose command name is `comm` (e.g. `postgres`, `nats-server`). */
export function pidsNamed(comm: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === comm) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** Busy and total CPU seconds of the whole machine (all cores), from `/proc/stat`. */
export function machineCpu(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  const total = values.reduce((sum, v) => sum + v, 0);
  const idle = values[3]! + (values[4] ?? 0);
  return { busy: (total - idle) / TICKS, total: total / TICKS };
}

/** Groups of processes whose CPU time is compared before and after a timed run. */
export type ProcessGroups = Record<string, () => number[]>;

/**
 * Starts a CPU measurement; the returned function gives each group's CPU use over the interval
 * in cores (1 = one core busy all the time), `machine` for the whole machine and `other` for what
 * none of the groups account for. Processes that
 * appear meanwhile (new database connections) count from zero.
 */
export function measureCpu(groups: ProcessGroups): () => Record<string, number> {
  const snapshot = () =>
    Object.fromEntries(
      Object.entries(groups).map(([name, pids]) => [
        name,
        new Map(pids().map((pid) => [pid, cpuSeconds(pid)])),
      ]),
    );
  const start = performance.now();
  const before = snapshot();
  const machine = machineCpu();
  return () => {
    const seconds = (performance.now() - start) / 1000;
    const after = snapshot();
    const cores: Record<string, number> = {};
    for (const [name, now] of Object.entries(after)) {
      let used = 0;
      for (const [pid, cpu] of now) used += cpu - (before[name]!.get(pid) ?? 0);
      cores[name] = used / seconds;
    }
    const measured = Object.values(cores).reduce((sum, c) => sum + c, 0);
    cores['machine'] = (machineCpu().busy - machine.busy) / seconds;
    // Everything else the machine ran meanwhile (other work on a shared machine, the kernel).
    cores['other'] = Math.max(0, cores['machine'] - measured);
    return cores;
  };
}
