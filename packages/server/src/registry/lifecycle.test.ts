import { describe, expect, it } from 'vitest';
import { bearer, pluginDefinition, TEST_STORES, useHarness } from '../test-support/harness.js';

for (const store of TEST_STORES) {
  describe.skipIf(store.skip)(`deprecate and unpublish on ${store.name}`, () => {
    const h = useHarness(store.kind);
    const deprecate = (
      version: string,
      body: object = { reason: 'use 1.1.0' },
      key = h().keys.acme,
    ) =>
      h().app.inject({
        method: 'POST',
        url: `/plugins/slack/${version}/deprecate`,
        headers: bearer(key),
        payload: body,
      });
    const unpublish = (version: string, key = h().keys.acme) =>
      h().app.inject({ method: 'DELETE', url: `/plugins/slack/${version}`, headers: bearer(key) });
    const setup = async () => {
      await h().publish(pluginDefinition('slack'));
      await h().publish(pluginDefinition('slack', '1.1.0'), { method: 'PUT' });
    };

    it('deprecates a version with reason and replacement, shown in the detail', async () => {
      await setup();
      const response = await deprecate('1.0.0', {
        reason: 'security fix in 1.1.0',
        replacement_version: '1.1.0',
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        status: 'deprecated',
        slug: 'slack',
        version: '1.0.0',
        reason: 'security fix in 1.1.0',
        replacement_version: '1.1.0',
      });
      const detail = (await h().get('/plugins/slack?version=1.0.0')).json();
      expect(detail).toMatchObject({
        status: 'deprecated',
        deprecation: { reason: 'security fix in 1.1.0', replacement_version: '1.1.0' },
      });
    });

    it.each([
      ['no key', null, { reason: 'x' }, '1.0.0', 401],
      ['another owner', 'other', { reason: 'x' }, '1.0.0', 403],
      ['an unknown version', 'acme', { reason: 'x' }, '3.0.0', 404],
      ['no reason', 'acme', {}, '1.0.0', 400],
      [
        'an unknown replacement',
        'acme',
        { reason: 'x', replacement_version: '9.0.0' },
        '1.0.0',
        400,
      ],
      ['an unknown field', 'acme', { reason: 'x', why: 'y' }, '1.0.0', 400],
    ])('refuses a deprecation with %s', async (_what, who, body, version, status) => {
      await setup();
      const response = await h().app.inject({
        method: 'POST',
        url: `/plugins/slack/${version}/deprecate`,
        headers: who === null ? {} : bearer(h().keys[who as 'acme' | 'other']),
        payload: body,
      });
      expect(response.statusCode, response.body).toBe(status);
      expect(response.json().status).toBe('error');
      expect((await h().get('/plugins/slack?version=1.0.0')).json().status).toBe('published');
    });

    it('removes a deprecated version within 72 hours; it never comes back', async () => {
      await setup();
      await deprecate('1.1.0', { reason: 'broken' });
      h().clock.advanceHours(71);
      const response = await unpublish('1.1.0');
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ status: 'removed', slug: 'slack', version: '1.1.0' });
      const detail = (await h().get('/plugins/slack')).json();
      expect(detail).toMatchObject({
        version: '1.0.0',
        latest_version: '1.0.0',
        versions: ['1.0.0'],
      });
      expect((await h().get('/plugins/slack?version=1.1.0')).statusCode).toBe(404);
      expect((await h().get('/plugins/slack/1.1.0/schema')).statusCode).toBe(404);
      const again = await h().publish(pluginDefinition('slack', '1.1.0'), { method: 'PUT' });
      expect(again.statusCode).toBe(409);
      expect(again.json().details.constraint).toBe('removed');
      expect(
        (await h().publish(pluginDefinition('slack', '1.0.5'), { method: 'PUT' })).statusCode,
      ).toBe(409);
      expect(
        (await h().publish(pluginDefinition('slack', '1.1.1'), { method: 'PUT' })).statusCode,
      ).toBe(200);
    });

    it('lists every unmet condition: not deprecated, window expired, in use', async () => {
      await setup();
      h().clock.advanceHours(73);
      h().usage.uses.set('slack@1.0.0', ['nightly-report']);
      const response = await unpublish('1.0.0');
      expect(response.statusCode).toBe(409);
      expect(response.json()).toMatchObject({
        code: 'CONFLICT',
        details: {
          unmet: ['not_deprecated', 'window_expired', 'in_use'],
          workflows: ['nightly-report'],
        },
      });
      expect((await h().get('/plugins/slack?version=1.0.0')).statusCode).toBe(200);
    });

    it('refuses to remove a version after the window even when deprecated', async () => {
      await setup();
      await deprecate('1.0.0');
      h().clock.advanceHours(72.01);
      const response = await unpublish('1.0.0');
      expect(response.json().details.unmet).toEqual(['window_expired']);
    });

    it('answers 403 to another owner and 401 without a key', async () => {
      await setup();
      await deprecate('1.1.0');
      expect((await unpublish('1.1.0', h().keys.other)).statusCode).toBe(403);
      expect(
        (await h().app.inject({ method: 'DELETE', url: '/plugins/slack/1.1.0' })).statusCode,
      ).toBe(401);
    });

    it('drops a plugin from search once every version is removed, keeping the slug owned', async () => {
      await h().publish(pluginDefinition('slack'));
      await deprecate('1.0.0');
      expect((await unpublish('1.0.0')).statusCode).toBe(200);
      expect((await h().get('/plugins/search?q=slack')).json().total).toBe(0);
      expect((await h().get('/plugins/slack')).statusCode).toBe(404);
      expect(
        (await h().publish(pluginDefinition('slack', '2.0.0'), { key: h().keys.other })).statusCode,
      ).toBe(409);
      expect(
        (
          await h().publish(pluginDefinition('slack', '2.0.0'), {
            method: 'PUT',
            key: h().keys.other,
          })
        ).statusCode,
      ).toBe(403);
      expect(
        (await h().publish(pluginDefinition('slack', '2.0.0'), { method: 'PUT' })).statusCode,
      ).toBe(200);
    });
  });
}
