import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '@weft/identity';
import { buildServer, type BuiltServer } from './build.js';
import { bearer } from './test-support/harness.js';

const LIMIT = 4096;

describe('a body over the configured limit', () => {
  let server: BuiltServer;
  let key: string;

  beforeAll(async () => {
    server = await buildServer(
      { dataDir: mkdtempSync(join(tmpdir(), 'weft-body-limit-')), bodyLimit: LIMIT },
      { logger: false },
    );
    key = (await createApiKey(server.store, { name: 'acme' }, new Date().toISOString())).key;
    const deployed = await server.app.inject({
      method: 'PUT',
      url: '/workflows/hello',
      headers: bearer(key),
      payload: { name: 'hello', steps: [{ name: 't', type: 'transform', input: { ok: true } }] },
    });
    expect(deployed.statusCode, deployed.body).toBeLessThan(300);
  });
  afterAll(() => server?.close());

  it('answers 413 naming the limit in bytes, on every executions route', async () => {
    const big = { inputs: { text: 'x'.repeat(LIMIT * 2) } };
    for (const [url, payload] of [
      ['/workflows/hello/executions', big],
      ['/workflows/executions', { workflow: { name: 'w', steps: [] }, ...big }],
    ] as const) {
      const answer = await server.app.inject({
        method: 'POST',
        url,
        headers: bearer(key),
        payload,
      });
      expect(answer.statusCode, url).toBe(413);
      expect(answer.json(), url).toMatchObject({
        code: 'PAYLOAD_TOO_LARGE',
        details: { limit: LIMIT, unit: 'bytes' },
      });
    }
  });
});
