import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Cgroup } from './cgroup.js';
import { discoverControllers, type CgroupFacts } from './cgroup-discovery.js';

const V1_MOUNTS = `31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
38 31 0:35 / /sys/fs/cgroup/blkio rw,relatime - cgroup cgroup rw,blkio
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw`;
const V1_SELF = `8:pids:/
7:blkio:/
4:memory:/process_api/abc
1:cpu:/
0::/`;

const facts = (mountinfo: string, selfCgroup: string, v2: string[] = []): CgroupFacts => ({
  mountinfo,
  selfCgroup,
  v2Controllers: () => v2,
});

describe('finding the controllers', () => {
  it('takes v1 mounts when the unified hierarchy offers none, below the own group of each', () => {
    const places = discoverControllers(facts(V1_MOUNTS, V1_SELF, ['hugetlb']), 'weft');
    expect(Object.fromEntries([...places].map(([c, p]) => [c, [p.version, p.parent]]))).toEqual({
      memory: [1, '/sys/fs/cgroup/memory/process_api/abc/weft'],
      cpu: [1, '/sys/fs/cgroup/cpu/weft'],
      pids: [1, '/sys/fs/cgroup/pids/weft'],
      io: [1, '/sys/fs/cgroup/blkio/weft'],
    });
  });

  it('takes an absolute parent from each hierarchy root', () => {
    const places = discoverControllers(facts(V1_MOUNTS, V1_SELF), '/ops/weft');
    expect(places.get('memory')!.parent).toBe('/sys/fs/cgroup/memory/ops/weft');
  });

  it('takes the v2 unified hierarchy for the controllers it offers', () => {
    const mounts = '30 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate';
    const places = discoverControllers(
      facts(mounts, '0::/system.slice/weft.service', ['cpu', 'memory', 'pids', 'io']),
      'actions',
    );
    expect([...places.values()].map((p) => [p.controller, p.version, p.parent])).toEqual([
      ['memory', 2, '/sys/fs/cgroup/system.slice/weft.service/actions'],
      ['cpu', 2, '/sys/fs/cgroup/system.slice/weft.service/actions'],
      ['pids', 2, '/sys/fs/cgroup/system.slice/weft.service/actions'],
      ['io', 2, '/sys/fs/cgroup/system.slice/weft.service/actions'],
    ]);
  });

  it('finds nothing on a host without cgroup mounts', () => {
    expect(discoverControllers(facts('', ''), 'weft').size).toBe(0);
  });
});

describe('a v2 group', () => {
  it('writes memory.max with swap off, cpu.max, pids.max and io.max in one directory', () => {
    const root = mkdtempSync(join(tmpdir(), 'weft-cgroup-v2-'));
    try {
      const place = (controller: 'memory' | 'cpu' | 'pids' | 'io') =>
        [
          controller,
          { controller, version: 2 as const, mount: root, own: root, parent: root },
        ] as const;
      const places = new Map([place('memory'), place('cpu'), place('pids'), place('io')]);
      const limits = {
        memoryBytes: 64e6,
        cpuCores: 0.5,
        maxProcesses: 32,
        diskBytesPerSecond: 10e6,
        device: '254:0',
      };
      // A plain directory has no memory.swap.max: only what exists is written besides the limits.
      Cgroup.create(places, '1.1', limits);
      const read = (file: string) => readFileSync(join(root, '1.1', file), 'utf8');
      expect(read('memory.max')).toBe('64000000');
      expect(read('cpu.max')).toBe('50000 100000');
      expect(read('pids.max')).toBe('32');
      expect(read('io.max')).toBe('254:0 rbps=10000000 wbps=10000000');
      expect(Cgroup.adopt(places, '1.1').procsFiles()).toEqual([join(root, '1.1', 'cgroup.procs')]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
