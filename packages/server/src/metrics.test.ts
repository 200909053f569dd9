import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '@weft/identity';
import { startServer, type RunningServer } from './start.js';

describe('GET /metrics needs an admin key (listening server, loopback)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'weft-metrics-'));
  let server: RunningServer;
  let admin: string;
  let plain: string;

  beforeAll(async () => {
    server = await startServer({ port: 0, dataDir, logLevel: 'silent' }, { logger: false });
    const at = new Date().toISOString();
    admin = (await createApiKey(server.store, { name: 'ops', admin: true }, at)).key;
    plain = (await createApiKey(server.store, { name: 'acme' }, at)).key;
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const scrape = (authorization?: string) =>
    fetch(`${server.url}/metrics`, authorization ? { headers: { authorization } } : {});

  it('refuses a scrape without a key or with a bad key with 401 UNAUTHORIZED', async () => {
    for (const [authorization, reason] of [
      [undefined, 'missing'],
      ['Bearer weft_000000000000_nope', 'invalid'],
      ['Basic abc', 'malformed'],
    ] as const) {
      const response = await scrape(authorization);
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({
        status: 'error',
        code: 'UNAUTHORIZED',
        details: { reason },
      });
    }
  });

  it('refuses a key that is not an admin key with 403 FORBIDDEN', async () => {
    const response = await scrape(`Bearer ${plain}`);
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({
      status: 'error',
      code: 'FORBIDDEN',
      details: { reason: 'not_admin' },
    });
  });

  it('answers an admin key with the Prometheus text', async () => {
    const response = await scrape(`Bearer ${admin}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await response.text()).toMatch(/^weft_executions_in_flight\{replica="[^"]+"\} 0$/m);
  });
});
