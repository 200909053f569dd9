import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createKey } from '@weft/registry';
import { dropTestSchema, testSchemaName } from '@weft/store';
import { buildServer } from './build.js';
import type { ServerOptions } from './config.js';

const databaseUrl = process.env['WEFT_TEST_DATABASE_URL'];

describe.each([
  { name: 'SQLite', kind: 'sqlite' as const, skip: false },
  {
    name: 'PostgreSQL (set WEFT_TEST_DATABASE_URL to run)',
    kind: 'postgres' as const,
    skip: !databaseUrl,
  },
])('audit log of the server on $name', ({ kind, skip }) => {
  it.skipIf(skip)(
    'keeps entries in the server’s database across a restart, for admin keys only',
    async () => {
      const schema = testSchemaName();
      const dataDir = mkdtempSync(join(tmpdir(), 'weft-server-audit-'));
      const options: ServerOptions = {
        dataDir,
        logLevel: 'silent',
        ...(kind === 'postgres' ? { databaseUrl, databaseSchema: schema } : {}),
      };
      try {
        const first = await buildServer(options, { logger: false });
        const at = new Date().toISOString();
        const admin = (await createKey(first.store, { name: 'ops', admin: true }, at)).key;
        const user = (await createKey(first.store, { name: 'acme' }, at)).key;
        const recorded = await first.runtime!.options.audit.record({
          subject: 'acme',
          credential: 'api_key',
          action: 'workflow.deploy',
          decision: 'deny',
          reason: 'lacks permission payroll:deploy',
          workflow: 'payroll',
          missing: { permissions: ['payroll:deploy'] },
        });
        await first.close();

        const second = await buildServer(options, { logger: false });
        try {
          const get = (url: string, key: string) =>
            second.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } });
          expect((await get('/audit', admin)).json()).toEqual({
            entries: [recorded],
            next_cursor: null,
          });
          expect((await get('/audit/verify', admin)).json()).toEqual({
            status: 'ok',
            entries: 1,
            last_hash: recorded.hash,
          });
          expect((await get('/audit', user)).statusCode).toBe(403);
        } finally {
          await second.close();
        }
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
        if (kind === 'postgres') {
          await dropTestSchema(databaseUrl!, schema);
        }
      }
    },
    // Two server starts (migrations, key hashing) on a shared machine.
    30_000,
  );
});
