import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '@weft/server';
import { run } from '../test-support.js';

const work = mkdtempSync(join(tmpdir(), 'weft-cli-admin-'));
const dataDir = join(work, 'data');
afterAll(() => rmSync(work, { recursive: true, force: true }));

const AT = '2026-01-01T00:00:00.000Z';

describe('weft admin move-owner', () => {
  it("carries a token user's old per-user data into their workspace", async () => {
    // Data made before workspaces: an execution owned by the user themself.
    const before = await startServer({ port: 0, dataDir, logLevel: 'silent' });
    await before.runtime!.options.store.create({
      id: '0190aaaa-0000-7000-8000-000000000001',
      owner: 'oidc:3f2a',
      key_id: 'oidc:3f2a',
      workflow: 'w',
      workflow_version: '1.0.0',
      mode: 'cloud',
      status: 'completed',
      definition: { workflow: { name: 'w', steps: [] }, library: [] },
      inputs: {},
      trigger: { type: 'api' },
      callback_url: null,
      created_at: AT,
      started_at: AT,
      finished_at: AT,
      canceled_at: null,
      result: { outputs: {}, steps: {} },
      error: null,
      callback: null,
    });
    await before.close();

    const moved = await run(
      'admin',
      'move-owner',
      '--from',
      'oidc:3f2a',
      '--to',
      'acme',
      '--data-dir',
      dataDir,
    );
    expect(moved).toMatchObject({ code: 0, out: 'moved from oidc:3f2a to acme: 1 executions\n' });
    const again = await run(
      'admin',
      'move-owner',
      '--from',
      'oidc:3f2a',
      '--to',
      'acme',
      '--data-dir',
      dataDir,
      '-o',
      'json',
    );
    expect(JSON.parse(again.out)).toMatchObject({ moved: { executions: 0 } });

    const key = JSON.parse(
      (
        await run(
          'auth',
          'create-key',
          '--name',
          'ci',
          '--owner',
          'acme',
          '--data-dir',
          dataDir,
          '-o',
          'json',
        )
      ).out,
    ).key as string;
    const after = await startServer({ port: 0, dataDir, logLevel: 'silent' });
    try {
      const response = await fetch(
        `${after.url}/workflows/executions/0190aaaa-0000-7000-8000-000000000001`,
        { headers: { authorization: `Bearer ${key}` } },
      );
      expect(response.status).toBe(200);
    } finally {
      await after.close();
    }
  });

  it('refuses a target that is not an owner name with exit code 2, naming it', async () => {
    const refused = await run(
      'admin',
      'move-owner',
      '--from',
      'oidc:3f2a',
      '--to',
      'oidc:bob',
      '--data-dir',
      dataDir,
    );
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('--to "oidc:bob" must be an owner name');
  });
});
