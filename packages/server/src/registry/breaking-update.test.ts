import { describe, expect, it } from 'vitest';
import { pluginDefinition, TEST_STORES, useHarness } from '../test-support/harness.js';

/** Version 1.3.0 of `tools`: `get` takes an optional `id`, answers a `total`. */
const v1 = (version = '1.3.0', actions?: object[]) =>
  pluginDefinition('tools', version, {
    actions: actions ?? [
      {
        name: 'get',
        description: 'Gets one',
        input_schema: { type: 'object', properties: { id: { type: ['string', 'number'] } } },
        output_schema: { type: 'object', properties: { total: { type: 'integer' } } },
      },
    ],
  });

/** `get` renamed `fetch`, with a new required input `team`. */
const renamed = (version: string) =>
  v1(version, [
    {
      name: 'fetch',
      description: 'Fetches one',
      input_schema: {
        type: 'object',
        properties: { id: { type: ['string', 'number'] }, team: { type: 'string' } },
        required: ['team'],
      },
      output_schema: { type: 'object', properties: { total: { type: 'integer' } } },
    },
  ]);

/** `get` with a new optional input and a new output property. */
const widened = (version: string) =>
  v1(version, [
    {
      name: 'get',
      description: 'Gets one',
      input_schema: {
        type: 'object',
        properties: { id: { type: ['string', 'number'] }, team: { type: 'string' } },
      },
      output_schema: {
        type: 'object',
        properties: { total: { type: 'integer' }, next: { type: 'string' } },
      },
    },
  ]);

for (const store of TEST_STORES) {
  describe.skipIf(store.skip)(`breaking changes on PUT /plugins/{slug} on ${store.name}`, () => {
    const h = useHarness(store.kind);
    const put = (definition: object, query = '') =>
      h().publish(definition, { method: 'PUT', query });
    const versions = async () =>
      (await h().get('/plugins/tools')).json<{ versions: string[] }>().versions;

    it('refuses a minor that renames an action and adds a required input with 409', async () => {
      expect((await h().publish(v1())).statusCode).toBe(201);
      const response = await put(renamed('1.4.0'));
      expect(response.statusCode).toBe(409);
      expect(response.json()).toMatchObject({
        code: 'CONFLICT',
        details: {
          constraint: 'breaking_change_needs_major',
          version: '1.4.0',
          previous_version: '1.3.0',
          required_version: '2.0.0',
          breaks: [{ action: 'get', path: 'action', change: 'removed (renamed? new: fetch)' }],
        },
      });
      expect(await versions()).toEqual(['1.3.0']);
      expect((await put(renamed('2.0.0'))).statusCode).toBe(200);
    });

    it('lists every break of an action kept by name', async () => {
      await h().publish(v1());
      const changed = v1('1.4.0', [
        {
          name: 'get',
          description: 'Gets one',
          input_schema: {
            type: 'object',
            properties: { id: { type: 'string' }, team: { type: 'string' } },
            required: ['team'],
          },
          output_schema: { type: 'object', properties: {} },
        },
      ]);
      const response = await put(changed);
      expect(response.statusCode).toBe(409);
      expect(response.json().details.breaks).toEqual([
        {
          action: 'get',
          path: 'input.properties.id',
          change: 'type narrowed: [number, string] → string',
        },
        { action: 'get', path: 'input.properties.team', change: 'added as required' },
        { action: 'get', path: 'output.properties.total', change: 'removed' },
      ]);
    });

    it('needs a minor below 1.0', async () => {
      await h().publish(v1('0.3.2'));
      const response = await put(renamed('0.3.3'));
      expect(response.json().details).toMatchObject({ required_version: '0.4.0' });
      expect((await put(renamed('0.4.0'))).statusCode).toBe(200);
    });

    it('passes compatible changes with a minor', async () => {
      await h().publish(v1());
      expect((await put(widened('1.4.0'))).statusCode).toBe(200);
      expect(await versions()).toEqual(['1.4.0', '1.3.0']);
    });

    it('answers the diff on a dry run and stores nothing', async () => {
      await h().publish(v1());
      const response = await put(widened('1.4.0'), '?dry_run=true');
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({
        dry_run: true,
        diff: {
          against: '1.3.0',
          required_version: '1.3.1',
          breaks: [],
          compatible: [
            { action: 'get', path: 'input.properties.team', change: 'added' },
            { action: 'get', path: 'output.properties.next', change: 'added' },
          ],
        },
      });
      expect(await versions()).toEqual(['1.3.0']);
      const refused = await put(renamed('1.4.0'), '?dry_run=true');
      expect(refused.statusCode).toBe(409);
      expect(refused.json().details.breaks).toHaveLength(1);
    });
  });
}
