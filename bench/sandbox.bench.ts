/**
 * The connector sandbox (issue 30): what it adds to one shell call, next to a bare `spawn` of
 * `/bin/true` in the same run (the physical limit), and what its limits let an action use,
 * measured from inside the action (bench/sandbox/limits.ts). Every case runs once per round, in
 * a new seeded random order each round; median and p95 per case. The cell cases do what
 * `runShell` does around the process (enter, spawn of `cell.wrap`, breach, dispose); the
 * `part:` rows time pieces of that alone. Target: under 5 ms or 25% of the bare spawn.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalInvoker, Sandbox, type CellRequest } from '@weft/sdk';
import {
  median,
  pluginCall,
  printTable,
  quantile,
  spawnPiped,
  spawnToEnd,
} from './sandbox/common.js';
import { measureLimits } from './sandbox/limits.js';
import { shuffler } from './harness.js';

const ROUNDS = Number(process.env['WEFT_BENCH_ROUNDS'] ?? 200);
const TARGET_MS = 5;
const TARGET_SHARE = 0.25;

type Phases = Map<string, number[]>;

interface Case {
  readonly name: string;
  /** `bare`: the added cost is the median minus bare /bin/true's; `self`: the median itself. */
  readonly added?: 'bare' | 'self';
  /** Judged against the target. */
  readonly target?: boolean;
  readonly once: (phases: Phases) => Promise<void>;
  readonly phases: Phases;
  /** Idle ms before each timed call (not timed): the kernel's cost of moving a task into a group
   * after a quiet spell (an RCU grace period) shows only when calls are spaced. */
  readonly idleBefore?: number;
}

const RLIMITED = { limits: { maxFileDescriptors: 64 }, storage: { maxSize: '2MB' } };
const request = (runtime: CellRequest['connectorRuntime']): CellRequest => ({
  connectorRuntime: runtime,
  stepRuntime: undefined,
  connector: 'bench/sh',
  call: 'sh.true',
});

/** One call as `runShell` makes it, each phase timed: enter, spawn to close, breach, dispose. */
async function cellCall(sandbox: Sandbox, req: CellRequest, phases: Phases): Promise<void> {
  const mark = (phase: string, since: number) => {
    const now = performance.now();
    phases.set(phase, [...(phases.get(phase) ?? []), now - since]);
    return now;
  };
  let t = performance.now();
  const cell = sandbox.enter(req);
  t = mark('enter', t);
  try {
    cell.watch(() => undefined);
    const command = cell.wrap('/bin/true', []);
    const ended = await spawnToEnd(command.file, command.args, {
      cwd: cell.scratch,
      env: { PATH: process.env['PATH'], ...cell.environment() },
      detached: true,
    });
    t = mark('spawn to close', t);
    const breach = await cell.breach(ended.code, ended.signal, '');
    if (breach) throw new Error(`unexpected breach: ${breach.reason}`);
    t = mark('breach', t);
  } finally {
    await cell.dispose();
    mark('dispose', t);
  }
}

function shellInvoker(sandbox: Sandbox): LocalInvoker {
  const invoker = new LocalInvoker({ sandbox });
  for (const [name, runtime] of [
    ['sh', undefined],
    ['shr', RLIMITED],
  ] as const) {
    invoker.registerConnector({
      connector: {
        kind: 'shell',
        name,
        namespace: 'bench',
        version: '1.0.0',
        ...(runtime ? { runtime } : {}),
      },
      actions: [{ name: 'true', command: ['/bin/true'] }],
    });
  }
  return invoker;
}

/** This host's cgroup files with only the memory hierarchy: a sandbox of one group per cell. */
function memoryOnlyFacts() {
  const mountinfo = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .filter((line) => !/ - cgroup2? /.test(line) || /[ ,]memory(,|$)/.test(line))
    .join('\n');
  return {
    mountinfo,
    selfCgroup: readFileSync('/proc/self/cgroup', 'utf8'),
    v2Controllers: () => [],
  };
}

export async function run(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'weft-bench-sandbox-'));
  const parent = `weft-bench-${process.pid}`;
  const sandbox = await Sandbox.open({ cgroupParent: parent, scratchRoot: join(root, 'a') });
  // No control groups and no rlimits: the same path with a scratch directory only.
  const bare = await Sandbox.open({
    scratchRoot: join(root, 'b'),
    facts: { mountinfo: '', selfCgroup: '', v2Controllers: () => [] },
    shell: '/nonexistent/sh',
  });
  const memoryOnly = await Sandbox.open({
    cgroupParent: parent,
    scratchRoot: join(root, 'c'),
    facts: memoryOnlyFacts(),
    shell: '/nonexistent/sh',
  });
  const invoker = shellInvoker(sandbox);
  const invokerNoCgroup = shellInvoker(bare);
  // Cells kept for the whole run: each spawn joins their groups again (the group empties when
  // /bin/true exits), so the row is the `sh` wrapper plus the writes to cgroup.procs.
  const joinAll = sandbox.enter(request(undefined));
  const joinOne = memoryOnly.enter(request(undefined));
  const joinAllCommand = joinAll.wrap('/bin/true', []);
  const joinOneCommand = joinOne.wrap('/bin/true', []);
  const groups = sandbox.capabilities.places.size;
  const spawned = (file: string, args: readonly string[]) => () =>
    spawnToEnd(file, args).then(() => undefined);
  const enterDispose = (s: Sandbox) => () => s.enter(request(undefined)).dispose();

  const make = (
    name: string,
    once: (phases: Phases) => Promise<void>,
    extra: Partial<Pick<Case, 'added' | 'target' | 'idleBefore'>> = {},
  ): Case => ({ name, once, phases: new Map(), ...extra });
  const vsBare = { added: 'bare', target: true } as const;
  const cases: Case[] = [
    make('spawn /bin/true (limit)', spawned('/bin/true', [])),
    make('spawn node -e 0', spawned(process.execPath, ['-e', '0'])),
    // What runShell's own spawn is, without the sandbox: detached, three pipes, input on stdin.
    make('spawn /bin/true, detached + pipes', () => spawnPiped('/bin/true'), { added: 'bare' }),
    make(
      'cell, defaults (memory, cpu, io)',
      (p) => cellCall(sandbox, request(undefined), p),
      vsBare,
    ),
    make('cell, + rlimits (nofile, fsize)', (p) => cellCall(sandbox, request(RLIMITED), p), vsBare),
    make('LocalInvoker shell, defaults', () => invoke(invoker, 'sh'), vsBare),
    make('LocalInvoker shell, + rlimits', () => invoke(invoker, 'shr'), vsBare),
    make('LocalInvoker shell, defaults, 30 ms idle before', () => invoke(invoker, 'sh'), {
      ...vsBare,
      idleBefore: 30,
    }),
    make('LocalInvoker, no cgroup, no rlimits', () => invoke(invokerNoCgroup, 'sh'), {
      added: 'bare',
    }),
    make(`part: enter + dispose, ${groups} groups`, enterDispose(sandbox), { added: 'self' }),
    make('part: enter + dispose, scratch only', enterDispose(bare), { added: 'self' }),
    make('part: sh -c exec /bin/true', spawned('/bin/sh', ['-c', 'exec "$@"', 'sh', '/bin/true']), {
      added: 'bare',
    }),
    make('part: sh joining 1 group, exec', spawned(joinOneCommand.file, joinOneCommand.args), {
      added: 'bare',
    }),
    make(
      `part: sh joining ${groups} groups, exec`,
      spawned(joinAllCommand.file, joinAllCommand.args),
      {
        added: 'bare',
      },
    ),
    make(
      `part: sh joining ${groups} groups, exec, 30 ms idle before`,
      spawned(joinAllCommand.file, joinAllCommand.args),
      { added: 'bare', idleBefore: 30 },
    ),
  ];

  const times = new Map<Case, number[]>(cases.map((c) => [c, []]));
  for (let i = 0; i < 5; i++) for (const c of cases) await c.once(new Map());
  const shuffle = shuffler(30);
  const order = [...cases];
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of shuffle(order)) {
      if (c.idleBefore) await new Promise((done) => setTimeout(done, c.idleBefore));
      const began = performance.now();
      await c.once(c.phases);
      times.get(c)!.push(performance.now() - began);
    }
  }
  await joinAll.dispose();
  await joinOne.dispose();

  const rows = summarize(cases, times);
  const limits = await measureLimits(sandbox);
  for (const s of [sandbox, bare, memoryOnly]) s.close();
  rmSync(root, { recursive: true, force: true });

  const directory = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(directory, { recursive: true });
  const document = {
    suite: 'sandbox',
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    options: { rounds: ROUNDS },
    enforced: sandbox.report(),
    cost: rows,
    limits,
  };
  writeFileSync(join(directory, 'sandbox.json'), `${JSON.stringify(document, null, 2)}\n`);
}

async function invoke(invoker: LocalInvoker, slug: string): Promise<void> {
  await invoker.invoke(pluginCall(slug, 'true'));
}

/** Medians, p95 and the added cost per case; prints the cost table and the phase table. */
function summarize(cases: readonly Case[], times: ReadonlyMap<Case, number[]>) {
  const bareMs = median(times.get(cases[0]!)!);
  const rows = cases.map((c) => {
    const ms = median(times.get(c)!);
    const added = c.added === 'bare' ? ms - bareMs : c.added === 'self' ? ms : undefined;
    const share = added === undefined ? undefined : added / bareMs;
    const ok = added !== undefined && (added <= TARGET_MS || share! <= TARGET_SHARE);
    return {
      name: c.name,
      medianMs: ms,
      p95Ms: quantile(times.get(c)!, 0.95),
      addedMs: added ?? null,
      shareOfBare: share ?? null,
      target: c.target ? (ok ? 'ok' : 'MISSED') : null,
      phasesMs: Object.fromEntries([...c.phases].map(([k, v]) => [k, median(v)])),
      samplesMs: times.get(c)!,
    };
  });
  printTable(
    `sandbox: one shell call, median of ${ROUNDS} shuffled rounds (target: added < ${TARGET_MS} ms or < ${TARGET_SHARE * 100}% of the bare spawn)`,
    ['case', 'median ms', 'p95 ms', 'added ms', '% of bare', 'target'],
    rows.map((r) => [
      r.name,
      r.medianMs.toFixed(2),
      r.p95Ms.toFixed(2),
      r.addedMs === null ? '' : r.addedMs.toFixed(2),
      r.shareOfBare === null ? '' : `${(r.shareOfBare * 100).toFixed(0)}%`,
      r.target ?? '',
    ]),
  );
  const phaseNames = ['enter', 'spawn to close', 'breach', 'dispose'];
  printTable(
    'sandbox: where a cell call goes (median ms per phase)',
    ['case', ...phaseNames],
    rows
      .filter((r) => Object.keys(r.phasesMs).length > 0)
      .map((r) => [r.name, ...phaseNames.map((p) => (r.phasesMs[p] ?? NaN).toFixed(2))]),
  );
  return rows;
}
