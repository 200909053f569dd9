import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalKey, startServer, type RunningServer } from '@weft/server';
import { run } from '../test-support.js';

const dir = mkdtempSync(join(tmpdir(), 'weft-cli-budgets-'));
let server: RunningServer;
let admin: string;
let acme: string;

beforeAll(async () => {
  const dataDir = join(dir, 'data');
  server = await startServer({ port: 0, dataDir, logLevel: 'silent' }, { logger: false });
  admin = (await createLocalKey({ dataDir }, { name: 'root', owner: 'ops', admin: true })).key;
  acme = (await createLocalKey({ dataDir }, { name: 'dev', owner: 'acme' })).key;
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('weft admin budget and weft budgets', () => {
  it('set a workspace budget with an admin key, and show it to the workspace', async () => {
    const refused = await run(
      'admin',
      'budget',
      'set',
      'acme',
      '--max-cost',
      '25',
      '--period',
      'week',
      '--server',
      server.url,
      '--api-key',
      acme,
    );
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('FORBIDDEN');
    const bad = await run(
      'admin',
      'budget',
      'set',
      'acme',
      '--max-cost',
      '-3',
      '--period',
      'week',
      '--server',
      server.url,
      '--api-key',
      admin,
    );
    expect(bad.code).not.toBe(0);
    expect(bad.err).toContain('--max-cost must be a positive number');
    const set = await run(
      'admin',
      'budget',
      'set',
      'acme',
      '--max-cost',
      '25',
      '--max-tokens',
      '2000000',
      '--period',
      'week',
      '--server',
      server.url,
      '--api-key',
      admin,
    );
    expect(set.code, set.err).toBe(0);
    expect(set.out).toBe('workspace acme: $25 and 2000000 tokens a week\n');
    const listed = await run('budgets', '--server', server.url, '--api-key', acme, '-o', 'json');
    expect(listed.code, listed.err).toBe(0);
    expect(JSON.parse(listed.out)).toMatchObject({
      owner: 'acme',
      budgets: [{ scope: 'workspace', max_cost: 25, max_tokens: 2000000, spent_cost_usd: 0 }],
    });
    const table = await run('budgets', '--server', server.url, '--api-key', acme);
    expect(table.out).toContain('workspace acme');
    expect(table.out).toContain('$0 / $0 / $25');
    const removed = await run(
      'admin',
      'budget',
      'delete',
      'acme',
      '--server',
      server.url,
      '--api-key',
      admin,
    );
    expect(removed.code, removed.err).toBe(0);
    const gone = await run(
      'admin',
      'budget',
      'get',
      'acme',
      '--server',
      server.url,
      '--api-key',
      admin,
    );
    expect(gone.code).toBe(2);
    expect(gone.err).toContain('NOT_FOUND');
  });
});
