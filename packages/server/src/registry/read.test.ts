import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { bearer, pluginDefinition, TEST_STORES, useHarness } from '../test-support/harness.js';

for (const store of TEST_STORES) {
  describe.skipIf(store.skip)(`reads on ${store.name}`, () => {
    const h = useHarness(store.kind);

    it('answers the detail of the latest version with every field (docs/registry.md#plugin-detail)', async () => {
      const definition = pluginDefinition('slack', '1.0.0', {
        runtime: { memory: '256MB' },
        environment: [{ name: 'SLACK_TOKEN', description: 'Bot token', required: true }],
        changelog: 'First',
      });
      const published = (await h().publish(definition)).json<{ checksum: string }>();
      await h().publish(pluginDefinition('slack', '1.1.0'), { method: 'PUT' });
      const response = await h().get('/plugins/slack?version=1.0.0', {
        host: 'registry.example:8080',
      });
      expect(response.statusCode).toBe(200);
      const at = new Date(h().clock.ms).toISOString();
      expect(response.json()).toEqual({
        slug: 'slack',
        kind: 'plugin',
        version: '1.0.0',
        name: 'Slack',
        description: 'Talks to slack.',
        author: 'Acme Corp',
        homepage: 'https://example.com/slack',
        repository: 'https://github.com/acme/slack',
        license: 'MIT',
        icon: 'https://example.com/slack.svg',
        tags: ['test'],
        actions: definition.actions,
        runtime: { memory: '256MB', timeout: 120 },
        environment: [{ name: 'SLACK_TOKEN', description: 'Bot token', required: true }],
        versions: ['1.1.0', '1.0.0'],
        latest_version: '1.1.0',
        downloads: 0,
        created_at: at,
        updated_at: at,
        published_at: at,
        schema_url: 'http://registry.example:8080/plugins/slack/1.0.0/schema',
        checksum: published.checksum,
        status: 'published',
        deprecation: null,
        signed: false,
        signature_key_id: null,
        owner: 'acme',
        changelog: 'First',
      });
      expect((await h().get('/plugins/slack')).json().version).toBe('1.1.0');
    });

    it.each([
      ['/plugins/ghost', 404, 'NOT_FOUND'],
      ['/plugins/Slack', 400, 'VALIDATION'],
      ['/plugins/a%2Fb', 400, 'VALIDATION'],
      ['/plugins/slack?version=9.9.9', 404, 'NOT_FOUND'],
      ['/plugins/slack?version=latest', 400, 'VALIDATION'],
      ['/plugins/slack/9.9.9/schema', 404, 'NOT_FOUND'],
      ['/plugins/slack/..%2F..%2Fetc/schema', 400, 'VALIDATION'],
      ['/no/such/route', 404, 'NOT_FOUND'],
    ])('answers %s with %i %s', async (url, status, code) => {
      await h().publish(pluginDefinition('slack'));
      const response = await h().get(url);
      expect(response.statusCode).toBe(status);
      expect(response.json()).toMatchObject({
        status: 'error',
        code,
        message: expect.any(String),
        details: expect.any(Object),
      });
    });

    it('lists the available versions when a version does not exist', async () => {
      await h().publish(pluginDefinition('slack'));
      const response = await h().get('/plugins/slack?version=2.0.0');
      expect(response.json().details).toEqual({
        slug: 'slack',
        version: '2.0.0',
        available: ['1.0.0'],
      });
    });

    it('serves the exact bytes with Content-Digest and ETag, 304 on If-None-Match, and counts downloads', async () => {
      const body = JSON.stringify(pluginDefinition('slack'), null, 2);
      await h().app.inject({
        method: 'POST',
        url: '/plugins',
        headers: { 'content-type': 'application/json', ...bearer(h().keys.acme) },
        payload: body,
      });
      const digest = createHash('sha256').update(body).digest();
      const first = await h().get('/plugins/slack/1.0.0/schema');
      expect(first.statusCode).toBe(200);
      expect(first.body).toBe(body);
      expect(first.headers['content-type']).toBe('application/json');
      expect(first.headers['content-digest']).toBe(`sha-256=:${digest.toString('base64')}:`);
      expect(first.headers['etag']).toBe(`"sha256:${digest.toString('hex')}"`);
      const cached = await h().get('/plugins/slack/1.0.0/schema', {
        'if-none-match': String(first.headers['etag']),
      });
      expect(cached.statusCode).toBe(304);
      expect(cached.body).toBe('');
      const head = await h().app.inject({ method: 'HEAD', url: '/plugins/slack/1.0.0/schema' });
      expect(head.statusCode).toBe(200);
      expect(head.headers['etag']).toBe(first.headers['etag']);
      await h().get('/plugins/slack/1.0.0/schema');
      expect((await h().get('/plugins/slack')).json().downloads).toBe(2);
      expect((await h().get('/plugins/search?q=slack')).json().results[0].downloads).toBe(2);
    });

    it('searches name, tags and description by word prefix, ranked', async () => {
      await h().publish(
        pluginDefinition('http', '1.0.0', {
          name: 'HTTP',
          description: 'Call web APIs',
          tags: ['web'],
        }),
      );
      await h().publish(
        pluginDefinition('github', '1.0.0', {
          name: 'GitHub',
          description: 'Issues over HTTP',
          tags: ['git'],
        }),
      );
      await h().publish(
        pluginDefinition('webhook-relay', '1.0.0', {
          name: 'Webhook relay',
          description: 'Relays',
          tags: ['http'],
        }),
      );
      const search = async (query: string) =>
        (await h().get(`/plugins/search?${query}`)).json<{
          total: number;
          results: { slug: string }[];
        }>();
      const found = await search('q=HTTP');
      expect(found.total).toBe(3);
      expect(found.results.map((r) => r.slug)).toEqual(['http', 'webhook-relay', 'github']);
      expect((await search('q=iss')).results.map((r) => r.slug)).toEqual(['github']);
      expect((await search('tag=web')).results.map((r) => r.slug)).toEqual(['http']);
      expect(Object.keys(found.results[0]!).sort()).toEqual([
        'author',
        'created_at',
        'description',
        'downloads',
        'kind',
        'name',
        'slug',
        'tags',
        'updated_at',
        'version',
      ]);
    });

    it('finds a plugin by its exact slug, and nothing for a query without words', async () => {
      await h().publish(
        pluginDefinition('gh-issues', '1.0.0', { name: 'Tracker', description: 'Tickets' }),
      );
      await h().publish(pluginDefinition('slack'));
      const found = (await h().get('/plugins/search?q=gh-issues')).json<{
        total: number;
        results: { slug: string }[];
      }>();
      expect(found.total).toBe(1);
      expect(found.results.map((r) => r.slug)).toEqual(['gh-issues']);
      for (const q of ['!!!', '%20-%20', '%E2%80%94']) {
        expect((await h().get(`/plugins/search?q=${q}`)).json()).toEqual({ total: 0, results: [] });
      }
      expect((await h().get('/plugins/search?q=%20%20')).json().total).toBe(2);
    });

    it('pages with limit (default 20) and offset; total counts every match', async () => {
      for (let i = 0; i < 23; i++)
        await h().publish(pluginDefinition(`p${String(i).padStart(2, '0')}`));
      const page = (await h().get('/plugins/search')).json<{
        total: number;
        results: { slug: string }[];
      }>();
      expect(page.total).toBe(23);
      expect(page.results).toHaveLength(20);
      const last = (await h().get('/plugins/search?limit=5&offset=20')).json<{
        total: number;
        results: { slug: string }[];
      }>();
      expect(last).toMatchObject({ total: 23 });
      expect(last.results.map((r) => r.slug)).toEqual(['p20', 'p21', 'p22']);
    });

    it.each([
      'limit=0',
      'limit=101',
      'limit=abc',
      'limit=1.5',
      'offset=-1',
      'offset=abc',
      'offset=100001',
      'limit=0x10',
      'limit=%205',
      'limit=5&limit=6',
      'offset=1e3',
      'offset=',
    ])('answers 400 to ?%s', async (query) => {
      const response = await h().get(`/plugins/search?${query}`);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({
        code: 'VALIDATION',
        details: { field: query.split('=')[0] },
      });
    });

    it('answers the health shape (docs/protocol.md#health) and an OpenAPI document of every route', async () => {
      expect((await h().get('/healthz')).json()).toEqual({
        status: 'ok',
        version: '0.1.0',
        checks: { database: 'healthy', registry: 'healthy' },
      });
      const openapi = (await h().get('/openapi.json')).json<{
        openapi: string;
        paths: Record<string, unknown>;
      }>();
      expect(openapi.openapi).toBe('3.1.0');
      // Other components (router, runtime) mount their own paths on the same server.
      expect(Object.keys(openapi.paths)).toEqual(
        expect.arrayContaining([
          '/auth/keys',
          '/healthz',
          '/keys',
          '/owners/{owner}/keys',
          '/plugins',
          '/plugins/search',
          '/plugins/{slug}',
          '/plugins/{slug}/analytics',
          '/plugins/{slug}/{version}',
          '/plugins/{slug}/{version}/deprecate',
          '/plugins/{slug}/{version}/schema',
        ]),
      );
    });
  });

  describe.skipIf(store.skip)(`private registry on ${store.name}`, () => {
    const h = useHarness(store.kind, { private: true });

    it.each(['/plugins/search', '/plugins/slack', '/plugins/slack/1.0.0/schema'])(
      'needs a key to read %s',
      async (url) => {
        await h().publish(pluginDefinition('slack'));
        expect((await h().get(url)).statusCode).toBe(401);
        expect((await h().get(url, bearer(h().keys.other))).statusCode).toBe(200);
      },
    );
  });
}
