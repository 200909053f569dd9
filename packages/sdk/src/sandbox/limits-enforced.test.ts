import { existsSync } from 'node:fs';
import { afterAll, describe, expect } from 'vitest';
import {
  failureOf,
  itEnforcing,
  NODE,
  runBox,
  shellInvoker,
  testSandbox,
} from '../test-support/sandbox.js';

const box = await testSandbox();
afterAll(() => box.close());
const { sandbox } = box;

/** A node action allocating `mb` MiB in 1 MiB steps, then answering `{}`. */
const allocate = (mb: number) => [
  NODE,
  '-e',
  `const a=[];for(let i=0;i<${mb};i++)a.push(Buffer.alloc(1<<20,1));console.log('{}')`,
];
/** A node action opening `n` descriptors. */
const openFiles = (n: number) => [
  NODE,
  '-e',
  `const fs=require('fs');for(let i=0;i<${n};i++)fs.openSync('/dev/null','r');console.log('{}')`,
];
/** A node action writing `files` files of `mb` MiB into its working directory. */
const writeFiles = (files: number, mb: number) => [
  NODE,
  '-e',
  `const fs=require('fs');for(let i=0;i<${files};i++)fs.writeFileSync('f'+i,Buffer.alloc(${mb}<<20,1));console.log(JSON.stringify({cwd:process.cwd()}))`,
];
/** An sh action starting `n` sleepers in the background and waiting for them. */
const children = (n: number) => [
  'sh',
  '-c',
  `i=0; while [ $i -lt ${n} ]; do sleep 1 & i=$((i+1)); done; wait; echo '{}'`,
];

describe('the sandbox enforces memory', () => {
  const it = itEnforcing(sandbox, ['memory']);
  it('kills an action over its memory and fails the step with details.limit memory', async () => {
    const invoker = shellInvoker(
      sandbox,
      { hog: allocate(300) },
      { resources: { memory: '64MB' } },
    );
    const error = await failureOf(invoker, 'hog');
    expect(error).toMatchObject({
      code: 'BACKEND_ERROR',
      details: { limit: 'memory', configured: '64MB' },
    });
    expect(error['message']).toMatch(/memory limit of 64MB/);
    expect((error['details'] as { observed: number }).observed).toBeLessThanOrEqual(64e6 + 4096);
  }, 30_000);

  it('kills an sh action over its memory alike', async () => {
    const hog = ['sh', '-c', 'x=$(head -c 200000000 /dev/zero | tr "\\000" a); echo "{}"'];
    const invoker = shellInvoker(sandbox, { hog }, { resources: { memory: '32MB' } });
    expect(await failureOf(invoker, 'hog')).toMatchObject({
      code: 'BACKEND_ERROR',
      details: { limit: 'memory', configured: '32MB' },
    });
  }, 30_000);

  it('lets an action under its memory finish', async () => {
    const invoker = shellInvoker(
      sandbox,
      { small: allocate(16) },
      { resources: { memory: '64MB' } },
    );
    expect(await runBox(invoker, 'small')).toEqual({});
  }, 30_000);

  it('takes the step memory over the connector memory', async () => {
    const invoker = shellInvoker(
      sandbox,
      { mid: allocate(100) },
      { resources: { memory: '64MB' } },
    );
    expect(await runBox(invoker, 'mid', { resources: { memory: '256MB' } })).toEqual({});
    const tight = shellInvoker(sandbox, { mid: allocate(100) });
    expect(await failureOf(tight, 'mid', { resources: { memory: '48MB' } })).toMatchObject({
      details: { limit: 'memory', configured: '48MB' },
    });
  }, 30_000);
});

describe('the sandbox enforces processes', () => {
  const it = itEnforcing(sandbox, ['processes']);
  it('refuses forks past maxProcesses and fails the step with details.limit processes', async () => {
    const invoker = shellInvoker(sandbox, { many: children(30) }, { limits: { maxProcesses: 8 } });
    expect(await failureOf(invoker, 'many')).toMatchObject({
      code: 'BACKEND_ERROR',
      details: { limit: 'processes', configured: 8, observed: 8 },
    });
  }, 30_000);

  it('counts threads: a node action cannot start under maxProcesses 4', async () => {
    const invoker = shellInvoker(sandbox, { node: openFiles(1) }, { limits: { maxProcesses: 4 } });
    expect(await failureOf(invoker, 'node')).toMatchObject({
      details: { limit: 'processes', configured: 4 },
    });
  }, 30_000);

  it('lets an action within maxProcesses finish', async () => {
    const invoker = shellInvoker(sandbox, { few: children(5) }, { limits: { maxProcesses: 16 } });
    expect(await runBox(invoker, 'few')).toEqual({});
  }, 30_000);
});

describe('the sandbox enforces file descriptors', () => {
  const it = itEnforcing(sandbox, ['file_descriptors']);
  it('fails a node action that opens more than maxFileDescriptors', async () => {
    const limits = { limits: { maxFileDescriptors: 64 } };
    const invoker = shellInvoker(sandbox, { open: openFiles(500) }, limits);
    expect(await failureOf(invoker, 'open')).toMatchObject({
      code: 'BACKEND_ERROR',
      details: { limit: 'file_descriptors', configured: 64 },
    });
  }, 30_000);

  it('sets RLIMIT_NOFILE as seen by sh, and lets an action within it finish', async () => {
    const limits = { limits: { maxFileDescriptors: 64 } };
    const invoker = shellInvoker(
      sandbox,
      { ulimit: ['sh', '-c', 'ulimit -n'], open: openFiles(20) },
      limits,
    );
    expect(await runBox(invoker, 'ulimit')).toBe(64);
    expect(await runBox(invoker, 'open')).toEqual({});
  }, 30_000);
});

describe('the sandbox enforces storage', () => {
  const it = itEnforcing(sandbox, ['storage']);
  it('fails an action whose scratch files add up past storage.maxSize', async () => {
    const invoker = shellInvoker(
      sandbox,
      { fill: writeFiles(10, 1) },
      { storage: { maxSize: '2MB' } },
    );
    const error = await failureOf(invoker, 'fill');
    expect(error).toMatchObject({
      code: 'BACKEND_ERROR',
      details: { limit: 'storage', configured: '2MB' },
    });
    expect((error['details'] as { observed: number }).observed).toBeGreaterThan(2e6);
  }, 30_000);

  it('stops one file at storage.maxSize, in node (EFBIG) and in sh (SIGXFSZ)', async () => {
    const runtime = { storage: { maxSize: '2MB' } };
    const invoker = shellInvoker(
      sandbox,
      {
        node: writeFiles(1, 10),
        dd: ['sh', '-c', 'dd if=/dev/zero of=big bs=1048576 count=10 2>/dev/null; echo done'],
      },
      runtime,
    );
    for (const action of ['node', 'dd']) {
      expect(await failureOf(invoker, action)).toMatchObject({ details: { limit: 'storage' } });
    }
  }, 30_000);

  it('lets an action under storage.maxSize finish and deletes its scratch directory', async () => {
    const invoker = shellInvoker(
      sandbox,
      { fill: writeFiles(1, 1) },
      { storage: { maxSize: '2MB' } },
    );
    const { cwd } = (await runBox(invoker, 'fill')) as { cwd: string };
    expect(cwd.startsWith(box.scratchRoot)).toBe(true);
    expect(existsSync(cwd)).toBe(false);
  }, 30_000);

  it('keeps the scratch directory of a connector with ephemeral: false across runs', async () => {
    const invoker = shellInvoker(
      sandbox,
      {
        count: [
          NODE,
          '-e',
          "const fs=require('fs');fs.appendFileSync('n','x');console.log(JSON.stringify({n:fs.readFileSync('n','utf8').length,cwd:process.cwd()}))",
        ],
      },
      { storage: { ephemeral: false } },
    );
    expect(await runBox(invoker, 'count')).toMatchObject({ n: 1 });
    const second = (await runBox(invoker, 'count')) as { n: number; cwd: string };
    expect(second.n).toBe(2);
    expect(existsSync(second.cwd)).toBe(true);
  }, 30_000);
});
