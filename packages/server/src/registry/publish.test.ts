import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { pluginDefinition, TEST_STORES, useHarness } from '../test-support/harness.js';

for (const store of TEST_STORES) {
  describe.skipIf(store.skip)(`POST /plugins on ${store.name}`, () => {
    const h = useHarness(store.kind);
    const searchTotal = async () =>
      h()
        .get('/plugins/search')
        .then((r) => r.json<{ total: number }>().total);

    it('publishes a JSON definition and answers exactly the registry endpoints (docs/registry.md#endpoints) plus the checksum of the stored bytes', async () => {
      const body = JSON.stringify(pluginDefinition('slack'));
      const response = await h().app.inject({
        method: 'POST',
        url: '/plugins',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${h().keys.acme}` },
        payload: body,
      });
      expect(response.statusCode).toBe(201);
      expect(response.json()).toEqual({
        status: 'published',
        slug: 'slack',
        version: '1.0.0',
        url: 'http://localhost:80/plugins/slack',
        checksum: `sha256:${createHash('sha256').update(body).digest('hex')}`,
      });
    });

    it('publishes a YAML definition and serves back the exact YAML bytes', async () => {
      const yaml = `# my plugin\n${(await import('yaml')).stringify(pluginDefinition('github'))}`;
      const response = await h().app.inject({
        method: 'POST',
        url: '/plugins',
        headers: {
          'content-type': 'application/yaml; charset=utf-8',
          authorization: `Bearer ${h().keys.acme}`,
        },
        payload: yaml,
      });
      expect(response.statusCode).toBe(201);
      const schema = await h().get('/plugins/github/1.0.0/schema');
      expect(schema.headers['content-type']).toBe('application/yaml');
      expect(schema.body).toBe(yaml);
    });

    it('validates but stores nothing with ?dry_run=true', async () => {
      const response = await h().publish(pluginDefinition('dry'), { query: '?dry_run=true' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ status: 'published', slug: 'dry', dry_run: true });
      expect((await h().get('/plugins/dry')).statusCode).toBe(404);
      expect((await h().publish(pluginDefinition('dry'))).statusCode).toBe(201);
    });

    it('answers 409 when the slug already exists, even for its owner, and keeps the first', async () => {
      await h().publish(pluginDefinition('slack'));
      const again = await h().publish(pluginDefinition('slack', '2.0.0'));
      expect(again.statusCode).toBe(409);
      expect(again.json()).toMatchObject({
        status: 'error',
        code: 'CONFLICT',
        details: { constraint: 'exists' },
      });
      expect((await h().get('/plugins/slack')).json()).toMatchObject({
        version: '1.0.0',
        versions: ['1.0.0'],
      });
    });

    it.each(['my_plugin', 'myplugin', 'my-plug-in'])(
      'refuses %s, confusable with my-plugin',
      async (slug) => {
        await h().publish(pluginDefinition('my-plugin'));
        const response = await h().publish(pluginDefinition(slug), { key: h().keys.other });
        expect(response.statusCode).toBe(409);
        expect(response.json().details).toMatchObject({
          constraint: 'confusable',
          conflicts_with: 'my-plugin',
        });
        expect(await searchTotal()).toBe(1);
      },
    );

    it.each([
      ['../etc/passwd', 'pattern'],
      ['a/b', 'pattern'],
      ['a\\b', 'pattern'],
      ['Slack', 'pattern'],
      ['café', 'pattern'],
      ['dotted.name', 'pattern'],
      ['-leading', 'pattern'],
      ['x', 'min_length'],
      ['a'.repeat(65), 'max_length'],
    ])('refuses the slug %j with 400 and stores nothing', async (slug, constraint) => {
      const response = await h().publish(pluginDefinition(slug));
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({
        status: 'error',
        code: 'VALIDATION',
        details: { field: 'slug', constraint },
      });
      expect(await searchTotal()).toBe(0);
    });

    it.each(['1.0', 'v1.0.0', 'latest', '1.0.0+build.5', '01.0.0', ''])(
      'refuses the version %j with 400',
      async (version) => {
        const response = await h().publish(pluginDefinition('slack', version));
        expect(response.statusCode).toBe(400);
        expect(response.json().details.field).toBe('version');
      },
    );

    it.each([
      ['NOT-A-LICENSE', undefined],
      ['mit', 'MIT'],
      ['Apache2.0', 'Apache-2.0'],
      ['MIT OR Apache-2', 'Apache-2.0'],
      ['MIT OR', undefined],
      ['MIT WITH', undefined],
    ])('refuses the license %j with 400 (SPDX), stores nothing', async (license, suggestion) => {
      const response = await h().publish({ ...pluginDefinition('slack'), license });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({
        status: 'error',
        code: 'VALIDATION',
        details: { field: 'license', constraint: 'spdx' },
      });
      const message: string = response.json().message;
      if (suggestion) expect(message).toContain(`did you mean "${suggestion}"`);
      expect(await searchTotal()).toBe(0);
    });

    it.each([
      'MIT',
      'Apache-2.0 OR MIT',
      '(MIT AND BSD-3-Clause) OR GPL-2.0-only',
      'GPL-2.0-only WITH Classpath-exception-2.0',
      'LicenseRef-acme-internal',
      'GPL-2.0',
    ])('accepts the SPDX license %j', async (license) => {
      const response = await h().publish({ ...pluginDefinition('slack'), license });
      expect(response.statusCode).toBe(201);
    });

    it.each([
      'slug',
      'version',
      'name',
      'description',
      'actions',
      'author',
      'homepage',
      'repository',
      'license',
      'tags',
      'icon',
    ])('refuses a definition without the required field %s', async (field) => {
      const definition: Record<string, unknown> = { ...pluginDefinition('slack') };
      delete definition[field];
      const response = await h().publish(definition);
      expect(response.statusCode).toBe(400);
      expect(response.json().details).toMatchObject({ field, constraint: 'required' });
      expect(await searchTotal()).toBe(0);
    });

    it('lists every problem at once and suggests the key meant by a typo', async () => {
      const response = await h().publish({
        ...pluginDefinition('slack'),
        licence: 'MIT',
        actions: [],
      });
      expect(response.statusCode).toBe(400);
      const problems = response.json().details.problems as { field: string; message: string }[];
      expect(problems.map((p) => p.field).sort()).toEqual(['actions', 'licence']);
      expect(problems.find((p) => p.field === 'licence')?.message).toContain(
        'did you mean "license"',
      );
    });

    it.each([
      ['input_schema', { type: 'strin' }],
      ['output_schema', { $ref: '#/definitions/missing' }],
      ['input_schema', { type: 'object', properties: { a: { pattern: '([' } } }],
    ])('refuses an action whose %s is not valid JSON Schema', async (key, schema) => {
      const definition = pluginDefinition('slack', '1.0.0', {
        actions: [{ name: 'send', description: 'Sends', [key]: schema }],
      });
      const response = await h().publish(definition);
      expect(response.statusCode).toBe(400);
      expect(response.json().details).toMatchObject({
        field: `actions[0].${key}`,
        constraint: 'json_schema',
      });
    });

    it('refuses a connector block that disagrees with slug and version', async () => {
      const connector = { kind: 'http', name: 'other', namespace: 'acme', version: '9.9.9' };
      const response = await h().publish(pluginDefinition('slack', '1.0.0', { connector }));
      expect(response.statusCode).toBe(400);
      const fields = (response.json().details.problems as { field: string }[]).map((p) => p.field);
      expect(fields).toEqual(['connector.name', 'connector.version']);
    });
  });
}
