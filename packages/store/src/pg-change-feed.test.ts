import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { RegistryStore } from '@weft/core';
import { openStore } from './open.js';
import { createTestPlugin } from './test-stores.js';

const url = process.env['WEFT_TEST_DATABASE_URL'];

/** Resolves once `heard` holds `count` entries (or fails after 5 s). */
async function until(heard: unknown[], count: number): Promise<void> {
  const deadline = Date.now() + 5000;
  while (heard.length < count) {
    if (Date.now() > deadline) throw new Error(`heard ${JSON.stringify(heard)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.skipIf(!url)(
  'plugin changes announced between processes on PostgreSQL (set WEFT_TEST_DATABASE_URL to run)',
  () => {
    const schemas: string[] = [];
    const stores: RegistryStore[] = [];
    const open = async (schema: string) => {
      const { registry } = await openStore({ kind: 'postgres', url: url!, schema, poolSize: 2 });
      stores.push(registry);
      return registry;
    };
    const newSchema = () => {
      const schema = `weft_test_${randomBytes(6).toString('hex')}`;
      schemas.push(schema);
      return schema;
    };
    const admin = async <T>(query: (client: pg.Client) => Promise<T>): Promise<T> => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return await query(client);
      } finally {
        await client.end();
      }
    };
    afterEach(async () => {
      for (const store of stores.splice(0)) await store.close();
      await admin(async (client) => {
        for (const schema of schemas.splice(0)) await client.query(`DROP SCHEMA ${schema} CASCADE`);
      });
    });

    it("tells a process about the other's committed changes only, in its own schema only", async () => {
      const schema = newSchema();
      const [a, b, elsewhere] = [await open(schema), await open(schema), await open(newSchema())];
      const heard = {
        a: [] as (string | null)[],
        b: [] as (string | null)[],
        other: [] as unknown[],
      };
      await a.watchPluginChanges((slug) => heard.a.push(slug));
      await b.watchPluginChanges((slug) => heard.b.push(slug));
      await elsewhere.watchPluginChanges((slug) => heard.other.push(slug));
      await createTestPlugin(a, 'slack');
      await until(heard.b, 1);
      await expect(createTestPlugin(a, 'slack')).rejects.toThrow();
      await createTestPlugin(b, 'github');
      await until(heard.a, 1);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(heard).toEqual({ a: ['github'], b: ['slack'], other: [] });
    });

    it('reconnects when its connection is lost and says changes may have been missed', async () => {
      const schema = newSchema();
      const [a, b] = [await open(schema), await open(schema)];
      const heard: (string | null)[] = [];
      const stop = await b.watchPluginChanges((slug) => heard.push(slug));
      const killed = await admin((client) =>
        client.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
          [`weft-changes-${schema}`],
        ),
      );
      expect(killed.rowCount).toBe(1);
      await until(heard, 1);
      expect(heard).toEqual([null]);
      await createTestPlugin(a, 'slack');
      await until(heard, 2);
      expect(heard).toEqual([null, 'slack']);
      await stop();
    });
  },
);
