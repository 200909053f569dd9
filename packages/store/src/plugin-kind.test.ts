import { afterEach, describe, expect, it } from 'vitest';
import { exactKey, searchWords, type RegistryStore } from '@weft/core';
import { createTestPlugin, openTestStore, type TestStore } from './test-stores.js';

const url = process.env['WEFT_TEST_DATABASE_URL'];

async function slugs(store: RegistryStore, kind?: 'plugin' | 'agent', q = '') {
  const { total, plugins } = await store.search({
    words: [...new Set(searchWords(exactKey(q)))],
    exact: exactKey(q),
    tag: undefined,
    kind,
    limit: 20,
    offset: 0,
  });
  return { total, slugs: plugins.map((p) => `${p.slug}:${p.kind}`) };
}

for (const dialect of ['sqlite', 'postgres'] as const) {
  describe.skipIf(dialect === 'postgres' && !url)(`plugin kinds on ${dialect}`, () => {
    let test: TestStore | undefined;
    afterEach(async () => {
      await test?.dispose();
      test = undefined;
    });

    it('stores the kind of a slug and filters searches by it', async () => {
      test = await openTestStore(dialect, url);
      const { store } = test;
      await createTestPlugin(store, 'mailer');
      await createTestPlugin(store, 'acme-support', 'agent');
      expect((await store.getPlugin('acme-support'))?.plugin.kind).toBe('agent');
      expect((await store.getDetail('mailer', undefined))?.state.plugin.kind).toBe('plugin');
      expect(await slugs(store)).toEqual({
        total: 2,
        slugs: ['acme-support:agent', 'mailer:plugin'],
      });
      expect(await slugs(store, 'agent')).toEqual({ total: 1, slugs: ['acme-support:agent'] });
      expect(await slugs(store, 'plugin')).toEqual({ total: 1, slugs: ['mailer:plugin'] });
      // With words, both full-text branches (SQLite's UNION) carry the filter.
      expect(await slugs(store, 'plugin', 'acme support')).toEqual({ total: 0, slugs: [] });
      expect((await slugs(store, 'agent', 'acme-support')).slugs).toEqual(['acme-support:agent']);
    });
  });
}
