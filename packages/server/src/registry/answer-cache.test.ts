import { describe, expect, it } from 'vitest';
import { bearer, pluginDefinition, TEST_STORES, useHarness } from '../test-support/harness.js';

for (const store of TEST_STORES) {
  describe.skipIf(store.skip)(`cached answers on ${store.name}`, () => {
    // The manual clock never moves by itself: cached answers live until a change drops them.
    // Downloads are written only when the owner asks for analytics (or at close).
    const h = useHarness(store.kind, { cacheTtlMs: 60_000, downloadFlushMs: 60_000 });
    const slugs = async (q: string) =>
      (await h().get(`/plugins/search?q=${q}`))
        .json<{ results: { slug: string; downloads: number }[] }>()
        .results.map((r) => `${r.slug}:${r.downloads}`);

    it('shows every publish, update, deprecation and unpublish at once', async () => {
      await h().publish(pluginDefinition('slack'));
      expect(await slugs('slack')).toEqual(['slack:0']);
      expect((await h().get('/plugins/slack')).json().version).toBe('1.0.0');
      await h().publish(pluginDefinition('slack-relay'));
      expect(await slugs('slack')).toEqual(['slack:0', 'slack-relay:0']);
      await h().publish(pluginDefinition('slack', '1.1.0'), { method: 'PUT' });
      expect((await h().get('/plugins/slack')).json().version).toBe('1.1.0');
      const deprecated = await h().app.inject({
        method: 'POST',
        url: '/plugins/slack/1.1.0/deprecate',
        headers: bearer(h().keys.acme),
        payload: { reason: 'broken' },
      });
      expect(deprecated.statusCode).toBe(200);
      expect((await h().get('/plugins/slack')).json().status).toBe('deprecated');
      expect((await h().get('/plugins/slack/1.1.0/schema')).statusCode).toBe(200);
      const removed = await h().app.inject({
        method: 'DELETE',
        url: '/plugins/slack/1.1.0',
        headers: bearer(h().keys.acme),
      });
      expect(removed.statusCode).toBe(200);
      expect((await h().get('/plugins/slack')).json().version).toBe('1.0.0');
      expect((await h().get('/plugins/slack?version=1.1.0')).statusCode).toBe(404);
      expect((await h().get('/plugins/slack/1.1.0/schema')).statusCode).toBe(404);
      expect((await h().get('/plugins/slack/1.0.0/schema')).statusCode).toBe(200);
    });

    it('keeps search answers through installs; details show counts once written', async () => {
      const counted = h();
      await counted.publish(pluginDefinition('slack-a'));
      await counted.publish(pluginDefinition('slack-b'));
      const search = () => slugs('slack');
      expect(await search()).toEqual(['slack-a:0', 'slack-b:0']);
      expect((await counted.get('/plugins/slack-b')).json().downloads).toBe(0);
      expect((await counted.get('/plugins/slack-b/1.0.0/schema')).statusCode).toBe(200);
      expect((await counted.get('/plugins/slack-b')).json().downloads).toBe(0);
      // The owner's analytics write what is counted first: the detail shows it at once.
      const analytics = await counted.get('/plugins/slack-b/analytics', bearer(counted.keys.acme));
      expect(analytics.json().downloads).toBe(1);
      expect((await counted.get('/plugins/slack-b')).json().downloads).toBe(1);
      // The search answer keeps its counts until its time to live runs out; then the first
      // request gets it once more while it is read again.
      expect(await search()).toEqual(['slack-a:0', 'slack-b:0']);
      counted.clock.ms += 60_000;
      expect(await search()).toEqual(['slack-a:0', 'slack-b:0']);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await search()).toEqual(['slack-b:1', 'slack-a:0']);
    });

    it('serves an expired answer at once while one read replaces it, for one time to live at most', async () => {
      await h().publish(pluginDefinition('slack'));
      const { store, clock } = h();
      const search = store.search.bind(store);
      let reads = 0;
      let fail = false;
      let release: () => void = () => {};
      store.search = async (query) => {
        reads++;
        await new Promise<void>((resolve) => (release = resolve));
        if (fail) throw new Error('the database is gone');
        return search(query);
      };
      const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
      const first = slugs('slack');
      await settle();
      release();
      expect(await first).toEqual(['slack:0']);
      expect(reads).toBe(1);

      // Expired: every request is answered from the cache without waiting, and one read runs.
      clock.ms += 60_000;
      expect(await Promise.all([slugs('slack'), slugs('slack')])).toEqual([
        ['slack:0'],
        ['slack:0'],
      ]);
      await settle();
      expect(reads).toBe(2);
      release();
      await settle();
      expect(await slugs('slack')).toEqual(['slack:0']);
      expect(reads).toBe(2);

      // A failed refresh forgets the stale answer: the next request reads, and meets the failure.
      clock.ms += 60_000;
      fail = true;
      expect(await slugs('slack')).toEqual(['slack:0']);
      await settle();
      release();
      await settle();
      const failed = h().get('/plugins/search?q=slack');
      await settle();
      release();
      expect((await failed).statusCode).toBe(500);
      expect(reads).toBe(4);

      // Past a second time to live an expired answer is not served: the request reads.
      fail = false;
      const fresh = slugs('slack');
      await settle();
      release();
      expect(await fresh).toEqual(['slack:0']);
      clock.ms += 120_000;
      const late = slugs('slack');
      await settle();
      expect(reads).toBe(6);
      release();
      expect(await late).toEqual(['slack:0']);
    });

    it('identical requests for an answer not cached share one read, unless a change came between', async () => {
      await h().publish(pluginDefinition('slack'));
      const { store } = h();
      const search = store.search.bind(store);
      let reads = 0;
      let release: () => void = () => {};
      store.search = async (query) => {
        reads++;
        await new Promise<void>((resolve) => (release = resolve));
        return search(query);
      };
      const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
      const three = Promise.all([slugs('slack'), slugs('slack'), slugs('slack')]);
      await settle();
      release();
      expect(await three).toEqual([['slack:0'], ['slack:0'], ['slack:0']]);
      expect(reads).toBe(1);

      // A prefix not cached yet: its read is in flight when the publish lands.
      const before = slugs('sla');
      await settle();
      const first = release;
      await h().publish(pluginDefinition('slack-relay'));
      const after = slugs('sla');
      await settle();
      first();
      release();
      await before;
      expect(await after).toEqual(['slack:0', 'slack-relay:0']);
      expect(reads).toBe(3);
    });

    it('keeps the cache through refused writes and dry runs', async () => {
      await h().publish(pluginDefinition('slack'));
      expect(await slugs('slack')).toEqual(['slack:0']);
      expect((await h().publish(pluginDefinition('slack'))).statusCode).toBe(409);
      const dry = await h().publish(pluginDefinition('slack-dry'), { query: '?dry_run=true' });
      expect(dry.statusCode).toBe(200);
      expect(await slugs('slack')).toEqual(['slack:0']);
    });
  });
}
