import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildServer } from '../build.js';
import { serverOptionsFromEnv } from '../config.js';

const work = mkdtempSync(join(tmpdir(), 'weft-server-sandbox-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the server's sandbox phase", () => {
  it('opens the sandbox of the settings, logs once what this host enforces, and closes it', async () => {
    const scratch = join(work, 'scratch');
    const lines: Record<string, unknown>[] = [];
    const server = await buildServer(
      {
        dataDir: join(work, 'data'),
        ...serverOptionsFromEnv({
          WEFT_SANDBOX: 'best-effort',
          WEFT_CGROUP_PARENT: `weft-server-test-${process.pid}`,
          WEFT_SCRATCH_DIR: scratch,
        }),
      },
      { logStream: { write: (line) => void lines.push(JSON.parse(line)) } },
    );
    const parents = [...server.sandbox.capabilities.places.values()].map((p) => p.parent);
    await server.close();

    const logged = lines.filter((l) => String(l['msg']).startsWith('sandbox'));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({
      level: 30,
      msg: expect.stringMatching(/^sandbox \(best-effort\) enforces .*storage/),
    });
    const limits = logged[0]!['sandbox'] as Record<string, string>;
    expect(Object.keys(limits)).toEqual(server.sandbox.report().map((r) => r.limit));
    expect(limits['storage']).toContain(scratch);
    expect(existsSync(scratch)).toBe(true);
    for (const parent of parents) {
      expect(parent).toContain(`weft-server-test-${process.pid}`);
      expect(existsSync(parent), `${parent} is removed at close`).toBe(false);
    }
  });
});
