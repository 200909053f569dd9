import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import {
  failureOf,
  itEnforcing,
  NODE,
  runBox,
  shellInvoker,
  testSandbox,
} from '../test-support/sandbox.js';
import { Sandbox } from './sandbox.js';

const box = await testSandbox();
afterAll(() => box.close());
const { sandbox } = box;

/** A node action answering the limits written for its own control groups (v1 or v2). */
const READ_OWN_LIMITS = `
const fs = require('fs');
const read = (p) => { try { return fs.readFileSync(p, 'utf8').trim(); } catch { return undefined; } };
const groups = {};
for (const line of fs.readFileSync('/proc/self/cgroup', 'utf8').trim().split('\\n')) {
  const [, names, path] = line.split(':');
  for (const n of (names || 'unified').split(',')) groups[n] = path;
}
const v1 = (c, f) => read('/sys/fs/cgroup/' + c + groups[c] + '/' + f);
const v2 = (f) => read('/sys/fs/cgroup' + (groups.unified || '') + '/' + f) ?? read('/sys/fs/cgroup/unified' + (groups.unified || '') + '/' + f);
console.log(JSON.stringify({
  cpu: v1('cpu', 'cpu.cfs_quota_us') ?? v2('cpu.max'),
  memory: v1('memory', 'memory.limit_in_bytes') ?? v2('memory.max'),
  pids: v1('pids', 'pids.max') ?? v2('pids.max'),
  io: v1('blkio', 'blkio.throttle.write_bps_device') ?? v2('io.max'),
}));`;

describe('defaults and overrides', () => {
  const it = itEnforcing(sandbox, ['memory', 'cpu']);
  it('applies 0.5 cores and 512MB when nothing is set, with no process cap', async () => {
    const invoker = shellInvoker(sandbox, { limits: [NODE, '-e', READ_OWN_LIMITS] });
    const seen = (await runBox(invoker, 'limits')) as Record<string, string>;
    expect(seen['cpu']).toMatch(/^50000( 100000)?$/);
    expect(Number(seen['memory'])).toBe(512e6);
    expect(seen['pids']).toBe('max');
    if (sandbox.capabilities.support.disk_io.enforced) {
      expect(seen['io']).toContain(`${sandbox.capabilities.device!} `);
      expect(seen['io']).toMatch(/10000000/);
    }
  });

  it("takes each field of the step's runtime over the connector's", async () => {
    const invoker = shellInvoker(
      sandbox,
      { limits: [NODE, '-e', READ_OWN_LIMITS] },
      { resources: { cpu: '2', memory: '256MB' }, limits: { maxProcesses: 64 } },
    );
    const seen = (await runBox(invoker, 'limits', { resources: { cpu: '250m' } })) as Record<
      string,
      string
    >;
    expect(seen['cpu']).toMatch(/^25000( 100000)?$/);
    expect(Number(seen['memory'])).toBe(256e6);
    expect(seen['pids']).toBe('64');
  });
});

describe('a host that cannot enforce a limit', () => {
  it('refuses a declared limit before the action runs, naming the limit and what is missing', async () => {
    // The parent "group" sits below a file: it can never be made.
    const broken = await testSandbox({ cgroupParent: '/cgroup.procs/weft' });
    try {
      expect(broken.sandbox.capabilities.support.memory).toMatchObject({ enforced: false });
      expect(broken.sandbox.capabilities.support.memory.how).toMatch(
        /cannot write the control group/,
      );
      const marker = join(broken.scratchRoot, 'ran');
      const invoker = shellInvoker(
        broken.sandbox,
        { touch: ['sh', '-c', `touch ${marker}`] },
        { resources: { memory: '64MB' } },
      );
      const error = await failureOf(invoker, 'touch');
      expect(error).toMatchObject({
        code: 'VALIDATION',
        details: { field: 'runtime.memory', constraint: 'sandbox', limit: 'memory' },
      });
      expect(error['message']).toMatch(/WEFT_SANDBOX=best-effort/);
      expect(existsSync(marker)).toBe(false);
      // Limits nobody declared are not refused: the defaults apply where the host can.
      const plain = shellInvoker(broken.sandbox, { echo: ['sh', '-c', 'echo "{}"'] });
      expect(await runBox(plain, 'echo')).toEqual({});
    } finally {
      broken.close();
    }
  });

  it('runs it in best-effort mode and warns once per connector', async () => {
    const warnings: string[] = [];
    const loose = await testSandbox({
      platform: 'darwin',
      mode: 'best-effort',
      warn: (message) => warnings.push(message),
    });
    try {
      const invoker = shellInvoker(
        loose.sandbox,
        { echo: ['sh', '-c', 'echo "{}"'] },
        { resources: { memory: '64MB', cpu: '1' } },
      );
      expect(await runBox(invoker, 'echo')).toEqual({});
      expect(await runBox(invoker, 'echo')).toEqual({});
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(
        /t\/box declares limits this host does not enforce: cpu \(this host is not Linux\); memory/,
      );
    } finally {
      loose.close();
    }
  });

  it('refuses a declared network.bandwidth on a shell action: weft cannot throttle it', async () => {
    const invoker = shellInvoker(
      sandbox,
      { echo: ['sh', '-c', 'echo "{}"'] },
      { network: { bandwidth: '1MB/s' } },
    );
    expect(await failureOf(invoker, 'echo')).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'runtime.bandwidth', limit: 'bandwidth' },
    });
  });
});

describe('cleanup', () => {
  const it = itEnforcing(sandbox, ['memory']);
  it('makes the parent group again when another process removed it empty', async () => {
    const own = await testSandbox({ cgroupParent: `weft-test-regrow-${process.pid}` });
    try {
      own.sandbox.close(); // as another server sharing the parent would at its shutdown
      const parent = own.sandbox.capabilities.places.get('memory')!.parent;
      expect(existsSync(parent)).toBe(false);
      const invoker = shellInvoker(own.sandbox, { limits: [NODE, '-e', READ_OWN_LIMITS] });
      expect(await runBox(invoker, 'limits')).toMatchObject({ memory: '512000000' });
    } finally {
      own.close();
    }
  });

  it('removes the groups and scratch directories a SIGKILLed process left, and kills their processes', async () => {
    const scratchRoot = mkdtempSync(join(tmpdir(), 'weft-sandbox-orphans-'));
    const pidFile = join(scratchRoot, 'sleeper.pid');
    const parent = `weft-test-orphans-${process.pid}`;
    // A process that runs a shell action through the built SDK, then dies by SIGKILL.
    const script = `
      import { LocalInvoker } from '@weft/sdk';
      const invoker = new LocalInvoker({ sandbox: { cgroupParent: ${JSON.stringify(parent)}, scratchRoot: ${JSON.stringify(scratchRoot)} } });
      invoker.registerConnector({ connector: { kind: 'shell', name: 'x', namespace: 't', version: '1.0.0' },
        actions: [{ name: 'sleep', command: ['sh', '-c', 'echo $$ > ${pidFile}; exec sleep 300'] }] });
      const context = { aborted: false, workflowId: 'w', stepName: 's', inputs: {}, executionMode: 'local',
        environment: { PATH: process.env.PATH }, secrets: {}, previousSteps: {}, signal: new AbortController().signal,
        idempotencyKey: 'k', progress: () => {} };
      await invoker.invoke({ target: { kind: 'plugin', slug: 'x' }, action: 'sleep', input: {}, context });`;
    const owner = spawn(NODE, ['--input-type=module', '-e', script], {
      cwd: resolve(import.meta.dirname, '../../../..'),
      stdio: 'ignore',
    });
    try {
      let sleeper = 0;
      for (let i = 0; i < 200 && !sleeper; i++) {
        await sleep(50);
        if (existsSync(pidFile)) sleeper = Number(readFileSync(pidFile, 'utf8'));
      }
      expect(sleeper).toBeGreaterThan(0);
      owner.kill('SIGKILL');
      await new Promise((done) => owner.once('exit', done));
      const left = (dir: string) => readdirSync(dir).filter((n) => n.startsWith(`${owner.pid}.`));
      const memoryParent = sandbox.capabilities.places
        .get('memory')!
        .parent.replace(/[^/]+$/, parent);
      expect(left(scratchRoot)).toHaveLength(1);
      expect(left(memoryParent)).toHaveLength(1);

      const next = await Sandbox.open({ cgroupParent: parent, scratchRoot });
      expect(left(scratchRoot)).toEqual([]);
      expect(left(memoryParent)).toEqual([]);
      expect(alive(sleeper)).toBe(false);
      next.close();
      expect(existsSync(memoryParent)).toBe(false);
    } finally {
      owner.kill('SIGKILL');
      rmSync(scratchRoot, { recursive: true, force: true });
    }
  }, 30_000);
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

it('reports every limit, enforced or not, with how or why', () => {
  expect(sandbox.report().map((r) => r.limit)).toEqual([
    'memory',
    'cpu',
    'processes',
    'disk_io',
    'file_descriptors',
    'storage',
    'bandwidth',
  ]);
});
