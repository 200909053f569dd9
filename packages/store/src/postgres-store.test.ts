import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { registryStoreContract } from './registry-store.contract.js';
import { createTestPlugin, openTestStore } from './test-stores.js';

const url = process.env['WEFT_TEST_DATABASE_URL'];

describe.skipIf(!url)('PostgreSQL store (set WEFT_TEST_DATABASE_URL to run)', () => {
  registryStoreContract(() => openTestStore('postgres', url));

  it('keeps the full-text index without a pending list, so searches never scan one', async () => {
    const test = await openTestStore('postgres', url);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ reloptions: string[] | null }>(
        `SELECT c.reloptions FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE c.relname = 'plugins_search' AND n.nspname = $1`,
        [test.schema],
      );
      expect(rows[0]?.reloptions).toContain('fastupdate=off');
    } finally {
      await client.end();
      await test.dispose();
    }
  });

  it('gives a test the schema an earlier test gave back, without its rows (vitest-setup.ts)', async () => {
    const first = await openTestStore('postgres', url);
    await createTestPlugin(first.store, 'slack');
    expect((await first.store.getPlugin('slack'))?.versions).toHaveLength(1);
    await first.dispose();
    const second = await openTestStore('postgres', url);
    try {
      expect(second.schema).toBe(first.schema);
      expect(await second.store.getPlugin('slack')).toBeUndefined();
      await createTestPlugin(second.store, 'slack');
    } finally {
      await second.dispose();
    }
  });
});
