import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exactKey, searchWords, type PluginDefinition, type RegistryStore } from '@weft/core';
import { openTestStore, type TestStore } from './test-stores.js';

const url = process.env['WEFT_TEST_DATABASE_URL'];

async function publish(store: RegistryStore, slug: string, tags: string[]): Promise<void> {
  const definition = {
    ...{ slug, version: '1.0.0', name: slug, author: 'acme', tags },
    description: 'Issues and pull requests',
    actions: [{ name: 'run', description: 'Runs' }],
  } as unknown as PluginDefinition;
  const at = '2026-01-02T00:00:00Z';
  const version = {
    ...{ kind: 'plugin' as const, version: '1.0.0', published_at: at, checksum: 'sha256:x' },
    content_type: 'application/json',
    body: new TextEncoder().encode(JSON.stringify(definition)),
    definition,
    signature_key_id: null,
  };
  await store.modifyPlugin(slug, slug, () => ({
    change: { kind: 'create', owner: 'acme', slug_key: slug, at, version },
    result: undefined,
  }));
}

async function slugs(store: RegistryStore, q: string, tag: string, offset = 0) {
  const exact = exactKey(q);
  const found = await store.search({ words: searchWords(exact), exact, tag, limit: 20, offset });
  return { total: found.total, slugs: found.plugins.map((p) => p.slug) };
}

/**
 * A tag filters words by a whole tag of the plugin: the SQLite store also asks its full-text
 * index for the tag's words, which plugins with those words in other tags pass.
 */
for (const kind of ['sqlite', 'postgres'] as const) {
  describe.skipIf(kind === 'postgres' && !url)(`search by words and a tag (${kind})`, () => {
    let opened: TestStore;
    beforeEach(async () => {
      opened = await openTestStore(kind, url);
      await publish(opened.store, 'github', ['git', 'http-hooks']);
      await publish(opened.store, 'gitlab', ['git-http', 'hooks']);
      await publish(opened.store, 'gitea', ['http']);
    });
    afterEach(() => opened.dispose());

    it('finds the plugins that have the tag itself', async () => {
      expect(await slugs(opened.store, 'issues', 'http-hooks')).toEqual({
        total: 1,
        slugs: ['github'],
      });
      expect(await slugs(opened.store, 'issues', 'http')).toEqual({ total: 1, slugs: ['gitea'] });
      expect(await slugs(opened.store, 'issues', 'hooks')).toEqual({
        total: 1,
        slugs: ['gitlab'],
      });
      expect(await slugs(opened.store, 'issues', 'git http')).toEqual({ total: 0, slugs: [] });
      expect(await slugs(opened.store, 'git', 'git', 5)).toEqual({ total: 1, slugs: [] });
    });
  });
}
