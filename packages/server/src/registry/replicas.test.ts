import { afterEach, describe, expect, it } from 'vitest';
import { createApiKey } from '@weft/identity';
import { dropTestSchema, type OpenedStore, openStore, testSchemaName } from '@weft/store';
import { buildServer, type BuiltServer } from '../build.js';
import { bearer, pluginDefinition } from '../test-support/harness.js';

const url = process.env['WEFT_TEST_DATABASE_URL'];

describe.skipIf(!url)(
  'registry replicas sharing PostgreSQL (set WEFT_TEST_DATABASE_URL to run)',
  () => {
    const schema = testSchemaName();
    const opened: OpenedStore[] = [];
    const servers: BuiltServer[] = [];
    afterEach(async () => {
      for (const server of servers.splice(0)) await server.close();
      for (const store of opened.splice(0)) await store.registry.close();
      await dropTestSchema(url!, schema);
    });

    /** A replica: its own store connections and its own answer cache (long-lived). */
    const replica = async () => {
      const store = await openStore({ kind: 'postgres', url: url!, schema, poolSize: 2 });
      opened.push(store);
      const server = await buildServer(
        { cacheTtlMs: 600_000, downloadFlushMs: 0 },
        { store: store.registry, logger: false },
      );
      servers.push(server);
      return { store: store.registry, app: server.app };
    };

    /** Asks `read` until `expected` answers, for up to 5 s (the announcement is asynchronous). */
    const eventually = async (read: () => Promise<unknown>, expected: unknown) => {
      const deadline = Date.now() + 5000;
      for (;;) {
        const value = await read();
        if (JSON.stringify(value) === JSON.stringify(expected) || Date.now() > deadline)
          return expect(value).toEqual(expected);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    };

    it("shows another replica's publish, update and unpublish without waiting for the cache to expire", async () => {
      const a = await replica();
      const b = await replica();
      const key = (await createApiKey(a.store, { name: 'acme' }, new Date().toISOString())).key;
      const search = async () =>
        (await b.app.inject({ method: 'GET', url: '/plugins/search?q=slack' }))
          .json<{ results: { slug: string; version: string }[] }>()
          .results.map((r) => `${r.slug}@${r.version}`);
      const detail = async () =>
        (await b.app.inject({ method: 'GET', url: '/plugins/slack' })).json<{ version?: string }>()
          .version;
      expect(await search()).toEqual([]);
      const publish = (version: string, method: 'POST' | 'PUT') =>
        a.app.inject({
          method,
          url: method === 'POST' ? '/plugins' : '/plugins/slack',
          headers: { 'content-type': 'application/json', ...bearer(key) },
          payload: JSON.stringify(pluginDefinition('slack', version)),
        });
      expect((await publish('1.0.0', 'POST')).statusCode).toBe(201);
      await eventually(search, ['slack@1.0.0']);
      expect(await detail()).toBe('1.0.0');
      expect((await publish('1.1.0', 'PUT')).statusCode).toBe(200);
      await eventually(search, ['slack@1.1.0']);
      await eventually(detail, '1.1.0');
      const schema110 = () =>
        b.app
          .inject({ method: 'GET', url: '/plugins/slack/1.1.0/schema' })
          .then((r) => r.statusCode);
      expect(await schema110()).toBe(200);
      await a.app.inject({
        method: 'POST',
        url: '/plugins/slack/1.1.0/deprecate',
        headers: bearer(key),
        payload: { reason: 'broken' },
      });
      const removed = await a.app.inject({
        method: 'DELETE',
        url: '/plugins/slack/1.1.0',
        headers: bearer(key),
      });
      expect(removed.statusCode).toBe(200);
      await eventually(schema110, 404);
      await eventually(detail, '1.0.0');
    });
  },
);
