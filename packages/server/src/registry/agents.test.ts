import { describe, expect, it } from 'vitest';
import { AgentCatalog } from '@weft/agents';
import { createHttpApp } from '@weft/http';
import { registryPlugin } from '@weft/registry';
import { openTestStore } from '@weft/store';
import { PublishedAgents } from '../published-agents.js';
import { bearer, pluginDefinition, TEST_STORES, useHarness } from '../test-support/harness.js';

const agent = (version = '1.0.0', more: Record<string, unknown> = {}) => ({
  agent: {
    namespace: 'acme',
    name: 'support',
    version,
    description: 'Answers support tickets',
    model: 'openai:gpt-4o-mini',
    ...more,
  },
});

for (const store of TEST_STORES) {
  describe.skipIf(store.skip)(`agent definitions in the registry on ${store.name}`, () => {
    const h = useHarness(store.kind);
    const update = (definition: object, slug = 'acme-support') =>
      h().app.inject({
        method: 'PUT',
        url: `/plugins/${slug}`,
        headers: { ...bearer(h().keys.acme), 'content-type': 'application/json' },
        payload: JSON.stringify(definition),
      });

    it('stores an agent as kind agent under <namespace>-<name>; searches filter by kind', async () => {
      const published = await h().publish(agent(), { format: 'yaml' });
      expect(published.statusCode, published.body).toBe(201);
      expect(published.json()).toMatchObject({ slug: 'acme-support', version: '1.0.0' });
      await h().publish(pluginDefinition('support'));
      const all = (await h().get('/plugins/search?q=support')).json();
      expect(all.results.map((r: { slug: string; kind: string }) => `${r.slug}:${r.kind}`)).toEqual(
        expect.arrayContaining(['acme-support:agent', 'support:plugin']),
      );
      expect((await h().get('/plugins/search?q=support&kind=agent')).json()).toMatchObject({
        total: 1,
        results: [{ slug: 'acme-support', kind: 'agent', author: 'acme' }],
      });
      expect((await h().get('/plugins/search?kind=plugin')).json().total).toBe(1);
      expect((await h().get('/plugins/support')).json().kind).toBe('plugin');
    });

    it('refuses a new version of another kind, and a slug that is not one', async () => {
      await h().publish(pluginDefinition('acme-support'));
      const refused = await update(agent('2.0.0'));
      expect(refused.statusCode).toBe(409);
      expect(refused.json().details).toMatchObject({ field: 'kind', constraint: 'same_kind' });
      const dotted = await h().publish(agent('1.0.0', { name: 'support.v2' }));
      expect(dotted.statusCode).toBe(400);
      expect(dotted.json().details).toMatchObject({ field: 'agent.name', constraint: 'slug' });
    });

    it('keeps the agents a server resolves equal to the registry: versions, deprecated, removed', async () => {
      await h().publish(agent('1.0.0'));
      expect((await update(agent('1.2.0'))).statusCode).toBe(200);
      const catalog = new AgentCatalog();
      const published = new PublishedAgents(h().store, catalog);
      await published.load();
      expect(catalog.find('agent:acme/support@^1')?.version).toBe('1.2.0');
      const deprecate = await h().app.inject({
        method: 'POST',
        url: '/plugins/acme-support/1.2.0/deprecate',
        headers: bearer(h().keys.acme),
        payload: { reason: 'broken prompt' },
      });
      expect(deprecate.statusCode).toBe(200);
      await published.refresh('acme-support');
      expect(catalog.find('agent:acme/support@^1')?.version).toBe('1.2.0');
      const removed = await h().app.inject({
        method: 'DELETE',
        url: '/plugins/acme-support/1.2.0',
        headers: bearer(h().keys.acme),
      });
      expect(removed.statusCode, removed.body).toBe(200);
      await published.refresh('acme-support');
      expect(catalog.find('agent:acme/support@^1')?.version).toBe('1.0.0');
      expect(catalog.find('agent:acme/support@1.2.0')).toBeUndefined();
    });
  });
}

describe('a registry started without an agent check', () => {
  it('refuses agent definitions (fail closed) and stores nothing', async () => {
    const test = await openTestStore('sqlite');
    const app = await createHttpApp();
    try {
      await app.register(registryPlugin({ store: test.store, cacheTtlMs: 0 }));
      const { createApiKey } = await import('@weft/identity');
      const key = await createApiKey(test.store, { name: 'acme' }, new Date().toISOString());
      const response = await app.inject({
        method: 'POST',
        url: '/plugins',
        headers: { ...bearer(key.key), 'content-type': 'application/json' },
        payload: JSON.stringify(agent()),
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({
        code: 'VALIDATION',
        details: { field: 'agent', constraint: 'unsupported' },
      });
      expect(await test.store.getPlugin('acme-support')).toBeUndefined();
    } finally {
      await app.close();
      await test.dispose();
    }
  });
});
