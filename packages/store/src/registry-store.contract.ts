import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ConflictError,
  exactKey,
  searchWords,
  type NewVersion,
  type PluginDefinition,
  type RegistryStore,
} from '@weft/core';
import type { TestStore } from './test-stores.js';

const AT = '2026-01-01T00:00:00.000Z';

function definition(
  slug: string,
  version: string,
  extra: Partial<PluginDefinition> = {},
): PluginDefinition {
  return {
    slug,
    version,
    name: slug,
    description: `The ${slug} plugin`,
    author: 'acme',
    homepage: 'https://example.com',
    repository: 'https://example.com/repo',
    license: 'MIT',
    icon: 'https://example.com/icon.svg',
    tags: [],
    actions: [{ name: 'run', description: 'Runs' }],
    ...extra,
  };
}

function newVersion(def: PluginDefinition, at = AT): NewVersion {
  const body = new TextEncoder().encode(JSON.stringify(def));
  return {
    kind: 'plugin',
    version: def.version,
    published_at: at,
    checksum: `sha256:${def.version}`,
    content_type: 'application/json',
    body,
    definition: def,
    signature_key_id: null,
  };
}

async function create(store: RegistryStore, def: PluginDefinition, owner = 'acme'): Promise<void> {
  await store.modifyPlugin(def.slug, def.slug.replace(/[-_.]/g, ''), () => ({
    change: {
      kind: 'create',
      owner,
      slug_key: def.slug.replace(/[-_.]/g, ''),
      at: AT,
      version: newVersion(def),
    },
    result: undefined,
  }));
}

async function search(
  store: RegistryStore,
  q: string,
  more: { tag?: string; limit?: number; offset?: number } = {},
) {
  const { total, plugins } = await store.search({
    words: [...new Set(searchWords(q))],
    exact: exactKey(q),
    tag: more.tag,
    limit: more.limit ?? 20,
    offset: more.offset ?? 0,
  });
  return { total, slugs: plugins.map((p) => p.slug) };
}

/** The contract every {@link RegistryStore} fulfils; run on SQLite and on PostgreSQL. */
export function registryStoreContract(open: () => Promise<TestStore>): void {
  let handle: TestStore | undefined;
  let store: RegistryStore;
  beforeEach(async () => {
    await handle?.dispose();
    handle = await open();
    store = handle.store;
  });
  afterAll(async () => handle?.dispose());

  describe('plugins and versions', () => {
    it('creates a plugin with its first version and keeps the exact bytes', async () => {
      await create(store, definition('slack', '1.0.0', { tags: ['chat'] }));
      const state = await store.getPlugin('slack');
      expect(state?.plugin).toMatchObject({
        slug: 'slack',
        owner: 'acme',
        slug_key: 'slack',
        downloads: 0,
      });
      expect(state?.plugin.listing).toEqual({
        latest_version: '1.0.0',
        name: 'slack',
        description: 'The slack plugin',
        author: 'acme',
        tags: ['chat'],
      });
      expect(state?.versions.map((v) => [v.version, v.status])).toEqual([['1.0.0', 'published']]);
      const body = await store.getBody('slack', '1.0.0');
      expect(new TextDecoder().decode(body)).toBe(
        JSON.stringify(definition('slack', '1.0.0', { tags: ['chat'] })),
      );
      expect((await store.getDefinition('slack', '1.0.0'))?.slug).toBe('slack');
      expect(await store.getPlugin('nope')).toBeUndefined();
    });

    it('reports an existing slug with the same confusion key to the decision', async () => {
      await create(store, definition('my-plugin', '1.0.0'));
      let seen: string | undefined = 'unset';
      await store.modifyPlugin('my_plugin', 'myplugin', (state, confusable) => {
        seen = confusable;
        expect(state).toBeUndefined();
        return { change: { kind: 'none' }, result: undefined };
      });
      expect(seen).toBe('my-plugin');
    });

    it('lets exactly one of two concurrent creations of a slug win', async () => {
      const results = await Promise.allSettled([
        create(store, definition('race', '1.0.0')),
        create(store, definition('race', '1.0.0'), 'other'),
      ]);
      const failures = results.filter((r) => r.status === 'rejected');
      expect(failures).toHaveLength(1);
      expect((failures[0] as PromiseRejectedResult).reason).toBeInstanceOf(ConflictError);
      expect((await store.getPlugin('race'))?.versions).toHaveLength(1);
    });

    it('rolls back everything when the decision throws', async () => {
      await expect(
        store.modifyPlugin('boom', 'boom', () => {
          throw new Error('no');
        }),
      ).rejects.toThrow('no');
      expect(await store.getPlugin('boom')).toBeUndefined();
    });

    it('adds versions, deprecates and removes them, moving the listing', async () => {
      await create(store, definition('pg', '1.0.0'));
      await store.modifyPlugin('pg', 'pg', () => ({
        change: {
          kind: 'add_version',
          at: AT,
          version: newVersion(definition('pg', '2.0.0', { name: 'Postgres Two' })),
          latest: '2.0.0',
        },
        result: undefined,
      }));
      expect((await store.getPlugin('pg'))?.plugin.listing?.name).toBe('Postgres Two');
      await store.modifyPlugin('pg', 'pg', () => ({
        change: {
          kind: 'deprecate',
          at: AT,
          version: '2.0.0',
          reason: 'broken',
          replacement_version: '1.0.0',
        },
        result: undefined,
      }));
      const deprecated = (await store.getPlugin('pg'))?.versions.find((v) => v.version === '2.0.0');
      expect(deprecated).toMatchObject({
        status: 'deprecated',
        deprecated_reason: 'broken',
        replacement_version: '1.0.0',
        deprecated_at: AT,
      });
      await store.modifyPlugin('pg', 'pg', () => ({
        change: { kind: 'remove', at: AT, version: '2.0.0', latest: '1.0.0' },
        result: undefined,
      }));
      const state = await store.getPlugin('pg');
      expect(state?.versions.find((v) => v.version === '2.0.0')?.status).toBe('removed');
      expect(state?.plugin.listing).toMatchObject({ latest_version: '1.0.0', name: 'pg' });
      await store.modifyPlugin('pg', 'pg', () => ({
        change: { kind: 'remove', at: AT, version: '1.0.0', latest: null },
        result: undefined,
      }));
      expect((await store.getPlugin('pg'))?.plugin.listing).toBeNull();
      expect((await search(store, 'pg')).total).toBe(0);
    });

    it('refuses a second row for the same version as a conflict', async () => {
      await create(store, definition('dup', '1.0.0'));
      const again = store.modifyPlugin('dup', 'dup', () => ({
        change: {
          kind: 'add_version',
          at: AT,
          version: newVersion(definition('dup', '1.0.0')),
          latest: '1.0.0',
        },
        result: undefined,
      }));
      await expect(again).rejects.toBeInstanceOf(ConflictError);
    });
  });

  describe('search', () => {
    beforeEach(async () => {
      await create(
        store,
        definition('http', '1.0.0', {
          name: 'HTTP',
          description: 'Call any web API',
          tags: ['web'],
        }),
      );
      await create(
        store,
        definition('github', '1.0.0', {
          name: 'GitHub',
          description: 'Issues and pull requests',
          tags: ['git', 'http-hooks'],
        }),
      );
      await create(
        store,
        definition('webhooks', '1.0.0', {
          name: 'Webhooks',
          description: 'Receive HTTP callbacks',
          tags: ['events'],
        }),
      );
      await create(
        store,
        definition('slack', '1.0.0', {
          name: 'Slack',
          description: 'Chat messages',
          tags: ['chat', 'web'],
        }),
      );
    });

    it('ranks exact matches, then name, tags and description matches', async () => {
      expect(await search(store, 'http')).toEqual({
        total: 3,
        slugs: ['http', 'github', 'webhooks'],
      });
    });

    it('matches word prefixes case-insensitively and needs every word', async () => {
      expect((await search(store, 'WEB')).slugs).toEqual(['webhooks', 'http', 'slack']);
      expect((await search(store, 'pull req')).slugs).toEqual(['github']);
      expect((await search(store, 'pull chat')).slugs).toEqual([]);
    });

    it('breaks ties by downloads, then slug', async () => {
      await store.recordDownloads([
        { slug: 'slack', version: '1.0.0', date: AT.slice(0, 10), count: 1 },
      ]);
      expect((await search(store, 'web')).slugs).toEqual(['webhooks', 'slack', 'http']);
    });

    it('filters by tag and pages with a total of all matches', async () => {
      expect((await search(store, '', { tag: 'web' })).slugs).toEqual(['http', 'slack']);
      expect(await search(store, '', { limit: 2, offset: 1 })).toEqual({
        total: 4,
        slugs: ['http', 'slack'],
      });
      expect(await search(store, '', { limit: 2, offset: 10 })).toEqual({ total: 4, slugs: [] });
    });

    it('finds a plugin by its exact slug when its words are nowhere else', async () => {
      await create(
        store,
        definition('gh-issues', '1.0.0', { name: 'Tracker', description: 'Tickets' }),
      );
      expect(await search(store, 'gh-issues')).toEqual({ total: 1, slugs: ['gh-issues'] });
      expect((await search(store, 'GH-Issues ', { tag: 'web' })).slugs).toEqual([]);
    });

    it('ranks an exact slug first among word matches without listing it twice', async () => {
      expect(await search(store, 'slack')).toEqual({ total: 1, slugs: ['slack'] });
    });

    it('folds accents and case the same way on every store', async () => {
      await create(
        store,
        definition('resume', '1.0.0', {
          name: 'Résumé Parser',
          description: 'Lit les CV ÉCRITS à la main',
          tags: ['Ünïcode'],
        }),
      );
      await create(
        store,
        definition('resumes', '1.0.0', { name: 'Parser of resumes', description: 'CVs' }),
      );
      expect((await search(store, 'resume')).slugs).toEqual(['resume', 'resumes']);
      expect((await search(store, 'RÉSUMÉ PARSER')).slugs).toEqual(['resume', 'resumes']);
      expect((await search(store, 'ecrits')).slugs).toEqual(['resume']);
      expect((await search(store, 'unicode')).slugs).toEqual(['resume']);
      expect((await search(store, 'écrits main')).slugs).toEqual(['resume']);
    });

    it('treats quotes and operators in the query as plain text', async () => {
      expect((await search(store, '"sl" OR * NEAR(')).slugs).toEqual([]);
      expect((await search(store, 'sl*')).slugs).toEqual(['slack']);
    });
  });

  describe('downloads, API keys and signing keys', () => {
    it('counts downloads per plugin, version and day', async () => {
      await create(store, definition('dl', '1.0.0'));
      await store.recordDownloads([{ slug: 'dl', version: '1.0.0', date: '2026-01-01', count: 1 }]);
      await store.recordDownloads([
        { slug: 'dl', version: '1.0.0', date: '2026-01-01', count: 2 },
        { slug: 'dl', version: '1.0.0', date: '2026-01-02', count: 1 },
      ]);
      await store.recordDownloads([]);
      expect((await store.getPlugin('dl'))?.plugin.downloads).toBe(4);
      expect(await store.downloadStats('dl', '2026-01-01')).toEqual({
        versions: [{ version: '1.0.0', downloads: 4 }],
        days: [
          { date: '2026-01-01', version: '1.0.0', downloads: 3 },
          { date: '2026-01-02', version: '1.0.0', downloads: 1 },
        ],
      });
      expect(await store.downloadStats('dl', '2026-01-02')).toEqual({
        versions: [{ version: '1.0.0', downloads: 4 }],
        days: [{ date: '2026-01-02', version: '1.0.0', downloads: 1 }],
      });
    });

    it('stores API keys by id and signing keys once per fingerprint', async () => {
      const record = {
        id: 'abc',
        name: 'ci',
        owner: 'acme',
        hash: 'ff',
        admin: true,
        roles: [],
        permissions: [],
        created_at: AT,
      };
      await store.insertApiKey(record);
      expect(await store.findApiKey('abc')).toEqual(record);
      expect(await store.findApiKey('zzz')).toBeUndefined();
      const key = {
        owner: 'acme',
        fingerprint: 'F1',
        key_id: 'K1',
        key_ids: ['K1', 'K2'],
        armored: 'x',
        user_ids: ['a <a@b>'],
        created_at: AT,
      };
      expect(await store.insertSigningKey(key)).toBe(true);
      expect(await store.insertSigningKey(key)).toBe(false);
      expect(await store.listSigningKeys('acme')).toEqual([key]);
      await store.ping();
    });

    it('keeps the roles and permissions of an API key', async () => {
      const record = {
        id: 'def',
        name: 'svc',
        owner: 'acme',
        hash: 'ee',
        admin: false,
        roles: ['ops', 'realm:finance'],
        permissions: ['payments:write', 'reports:*'],
        created_at: AT,
      };
      await store.insertApiKey(record);
      expect(await store.findApiKey('def')).toEqual(record);
    });

    it('revokes an API key once (the first time is kept); unknown ids are undefined', async () => {
      const record = {
        id: 'rev',
        name: 'svc',
        owner: 'acme',
        hash: 'dd',
        admin: false,
        roles: [],
        permissions: [],
        created_at: AT,
      };
      await store.insertApiKey(record);
      expect(await store.findApiKey('rev')).toEqual(record);
      const revoked = { ...record, revoked_at: '2026-02-01T00:00:00.000Z' };
      expect(await store.revokeApiKey('rev', revoked.revoked_at)).toEqual(revoked);
      expect(await store.findApiKey('rev')).toEqual(revoked);
      expect(await store.revokeApiKey('rev', '2026-03-01T00:00:00.000Z')).toEqual(revoked);
      expect(await store.revokeApiKey('nope', AT)).toBeUndefined();
    });
  });
}
