/**
 * What the sandbox's limits let an action use, measured from inside the action: a node busy
 * loop of ~1 s of wall time reports its own `process.cpuUsage()` (cores = CPU time / wall time)
 * under `cpu` limits, through `LocalInvoker` as a workflow step would run it; a node action
 * allocating (and touching) 1 MB at a time reports each step and its RSS on stdout until the
 * memory limit kills it, run in a cell directly so that its stdout is read after the kill.
 */
import { spawn } from 'node:child_process';
import { LocalInvoker, type CellRequest, type Sandbox } from '@weft/sdk';
import { median, pluginCall, printTable } from './common.js';

const CPU_RUNS = Number(process.env['WEFT_BENCH_CPU_RUNS'] ?? 3);
const BUSY =
  'const t0=performance.now(),c0=process.cpuUsage();let x=0;while(performance.now()-t0<1000)x++;' +
  'const c=process.cpuUsage(c0),w=performance.now()-t0;' +
  'console.log(JSON.stringify({cpuMs:(c.user+c.system)/1000,wallMs:w}))';
const ALLOCATE =
  'const fs=require("fs"),a=[];for(let i=1;i<=4096;i++){a.push(Buffer.allocUnsafe(1<<20).fill(i&255));' +
  'fs.writeSync(1,i+" "+process.memoryUsage().rss+"\\n")}';

/** One row of the limits table. */
export interface LimitRow {
  readonly limit: string;
  readonly configured: string;
  readonly observed: string;
  readonly detail: string;
}

/** Runs the CPU and memory cases, prints the second table and returns its rows. */
export async function measureLimits(sandbox: Sandbox): Promise<LimitRow[]> {
  const rows: LimitRow[] = [];
  const invoker = new LocalInvoker({ sandbox });
  const cpus: [string, string | undefined][] = [
    ['0.5', '0.5'],
    ['1', '1'],
    ['(default 0.5)', undefined],
  ];
  for (const [label, cpu] of cpus) {
    const name = `cpu${rows.length}`;
    invoker.registerConnector({
      connector: {
        kind: 'shell',
        name,
        namespace: 'bench',
        version: '1.0.0',
        ...(cpu ? { runtime: { resources: { cpu } } } : {}),
      },
      actions: [{ name: 'busy', command: [process.execPath, '-e', BUSY] }],
    });
    const cores: number[] = [];
    for (let i = 0; i < CPU_RUNS; i++) {
      const { output } = await invoker.invoke(pluginCall(name, 'busy'));
      const { cpuMs, wallMs } = output as { cpuMs: number; wallMs: number };
      cores.push(cpuMs / wallMs);
    }
    rows.push({
      limit: 'cpu (cores)',
      configured: label,
      observed: median(cores).toFixed(2),
      detail: `median of ${CPU_RUNS} busy loops of 1 s: ${cores.map((c) => c.toFixed(2)).join(', ')}`,
    });
  }
  // The host's share for one busy thread right now, outside any sandbox: the ceiling of `1`.
  const outside: number[] = [];
  for (let i = 0; i < CPU_RUNS; i++) {
    const { stdout } = await runToEnd(process.execPath, ['-e', BUSY], {});
    const { cpuMs, wallMs } = JSON.parse(stdout) as { cpuMs: number; wallMs: number };
    outside.push(cpuMs / wallMs);
  }
  rows.push({
    limit: 'cpu (cores)',
    configured: 'none (bare spawn)',
    observed: median(outside).toFixed(2),
    detail: `the same loop outside the sandbox: ${outside.map((c) => c.toFixed(2)).join(', ')}`,
  });
  for (const memory of ['64MB', '128MB']) {
    rows.push(await allocateUntilKilled(sandbox, memory));
  }
  printTable(
    'sandbox: what the limits allowed, measured inside the action',
    ['limit', 'configured', 'observed', 'how'],
    rows.map((r) => [r.limit, r.configured, r.observed, r.detail]),
  );
  return rows;
}

async function allocateUntilKilled(sandbox: Sandbox, memory: string): Promise<LimitRow> {
  const request: CellRequest = {
    connectorRuntime: { resources: { memory } },
    stepRuntime: undefined,
    connector: 'bench/mem',
    call: 'mem.allocate',
  };
  const cell = sandbox.enter(request);
  try {
    const command = cell.wrap(process.execPath, ['-e', ALLOCATE]);
    const { stdout, stderr, code, signal } = await runToEnd(command.file, command.args, {
      cwd: cell.scratch,
      env: { PATH: process.env['PATH'], ...cell.environment() },
      detached: true,
    });
    const last = stdout.trim().split('\n').at(-1)?.split(' ') ?? [];
    const mb = Number(last[0] ?? 0);
    const rssMb = Number(last[1] ?? 0) / 2 ** 20;
    const breach = await cell.breach(code, signal, stderr);
    const peak =
      breach?.observed !== undefined
        ? `, group peak ${(breach.observed / 2 ** 20).toFixed(1)} MiB`
        : '';
    return {
      limit: 'memory',
      configured: `${memory} (${(cell.limits.memoryBytes / 2 ** 20).toFixed(1)} MiB)`,
      observed: `${mb} MiB allocated, RSS ${rssMb.toFixed(1)} MiB`,
      detail: `ended by ${signal ?? `exit ${code}`}; breach: ${breach?.limit ?? 'none'}${peak}`,
    };
  } finally {
    await cell.dispose();
  }
}

/** Runs a program to its end with stdout and stderr collected. */
function runToEnd(
  file: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; detached?: boolean },
): Promise<{ stdout: string; stderr: string; code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, options);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ stdout, stderr, code, signal }));
  });
}
