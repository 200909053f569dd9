import { describe, expect, it } from 'vitest';
import { bearer, pluginDefinition, TEST_STORES, useHarness } from '../test-support/harness.js';

for (const store of TEST_STORES) {
  describe.skipIf(store.skip)(`PUT /plugins/{slug} on ${store.name}`, () => {
    const h = useHarness(store.kind);
    const put = (version: string, options: { key?: string; slug?: string } = {}) =>
      h().publish(pluginDefinition(options.slug ?? 'slack', version), {
        method: 'PUT',
        ...(options.key ? { key: options.key } : {}),
      });
    const versions = async () =>
      (await h().get('/plugins/slack')).json<{ versions: string[] }>().versions;

    it('publishes an incremented version and reports the previous one', async () => {
      await h().publish(pluginDefinition('slack'));
      const response = await put('1.1.0');
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({
        status: 'updated',
        slug: 'slack',
        version: '1.1.0',
        previous_version: '1.0.0',
      });
      expect(Object.keys(response.json()).sort()).toEqual([
        'checksum',
        'previous_version',
        'slug',
        'status',
        'url',
        'version',
      ]);
      expect(await versions()).toEqual(['1.1.0', '1.0.0']);
    });

    it.each(['1.0.0', '0.9.0', '1.0.0-rc.1'])(
      'answers 409 when the version %s is not above every published one',
      async (version) => {
        await h().publish(pluginDefinition('slack'));
        const response = await put(version);
        expect(response.statusCode).toBe(409);
        expect(response.json()).toMatchObject({
          code: 'CONFLICT',
          details: { field: 'version', constraint: 'incremented', previous_version: '1.0.0' },
        });
        expect(await versions()).toEqual(['1.0.0']);
      },
    );

    it('answers 403 to another owner and changes nothing', async () => {
      await h().publish(pluginDefinition('slack'));
      const response = await put('2.0.0', { key: h().keys.other });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({ code: 'FORBIDDEN', details: { owner: 'acme' } });
      expect(await versions()).toEqual(['1.0.0']);
    });

    it('answers 404 for a plugin never published', async () => {
      const response = await put('1.0.0', { slug: 'ghost' });
      expect(response.statusCode).toBe(404);
      expect(response.json().code).toBe('NOT_FOUND');
    });

    it('answers 400 when the body names another slug than the path', async () => {
      await h().publish(pluginDefinition('slack'));
      const response = await h().app.inject({
        method: 'PUT',
        url: '/plugins/slack',
        headers: { 'content-type': 'application/json', ...bearer(h().keys.acme) },
        payload: JSON.stringify(pluginDefinition('github', '2.0.0')),
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().details).toMatchObject({ field: 'slug', constraint: 'matches_path' });
    });

    it('keeps the highest stable version as latest when a prerelease is published', async () => {
      await h().publish(pluginDefinition('slack'));
      expect((await put('2.0.0-beta.1')).statusCode).toBe(200);
      const detail = (await h().get('/plugins/slack')).json();
      expect(detail).toMatchObject({
        version: '1.0.0',
        latest_version: '1.0.0',
        versions: ['2.0.0-beta.1', '1.0.0'],
      });
      expect((await h().get('/plugins/slack?version=2.0.0-beta.1')).json().version).toBe(
        '2.0.0-beta.1',
      );
    });

    it('validates only with ?dry_run=true', async () => {
      await h().publish(pluginDefinition('slack'));
      const response = await h().publish(pluginDefinition('slack', '1.1.0'), {
        method: 'PUT',
        query: '?dry_run=true',
      });
      expect(response.json()).toMatchObject({
        status: 'updated',
        dry_run: true,
        previous_version: '1.0.0',
      });
      expect(await versions()).toEqual(['1.0.0']);
    });
  });
}
