import { describe, expect, it } from 'vitest';
import { pluginDefinition, TEST_STORES, useHarness } from '../test-support/harness.js';

const bomb = [
  'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
  'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
  'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
  'e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]',
  'f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]',
].join('\n');

for (const store of TEST_STORES) {
  describe.skipIf(store.skip)(`hostile input on ${store.name}`, () => {
    const h = useHarness(store.kind);
    const send = (payload: string, contentType = 'application/yaml') =>
      h().app.inject({
        method: 'POST',
        url: '/plugins',
        headers: { 'content-type': contentType, authorization: `Bearer ${h().keys.acme}` },
        payload,
      });
    const searchTotal = async () =>
      (await h().get('/plugins/search')).json<{ total: number }>().total;

    it.each([
      ['no Authorization header', null, 'missing'],
      ['an empty bearer token', 'Bearer ', 'malformed'],
      ['a bearer with only spaces', 'Bearer    ', 'malformed'],
      ['another scheme', 'Basic YWxhZGRpbjpvcGVuc2VzYW1l', 'malformed'],
      [
        'an unknown key',
        'Bearer weft_000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
        'invalid',
      ],
      ['a key of the wrong shape', 'Bearer hunter2', 'invalid'],
    ])('answers 401 to a publish with %s and stores nothing', async (_what, header, reason) => {
      const response = await h().app.inject({
        method: 'POST',
        url: '/plugins',
        headers: {
          'content-type': 'application/json',
          ...(header === null ? {} : { authorization: header }),
        },
        payload: JSON.stringify(pluginDefinition('slack')),
      });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({
        status: 'error',
        code: 'UNAUTHORIZED',
        details: { reason },
      });
      expect(await searchTotal()).toBe(0);
    });

    it('refuses a known key id with a wrong secret', async () => {
      const forged = `${h().keys.acme.slice(0, -3)}AAA`;
      const response = await h().publish(pluginDefinition('slack'), { key: forged });
      expect(response.statusCode).toBe(401);
    });

    it('answers 413 to a body over 1 MiB and stores nothing', async () => {
      const big = JSON.stringify(
        pluginDefinition('slack', '1.0.0', { changelog: 'x'.repeat(1024 * 1024) }),
      );
      const response = await send(big, 'application/json');
      expect(response.statusCode).toBe(413);
      expect(response.json()).toMatchObject({
        status: 'error',
        code: 'PAYLOAD_TOO_LARGE',
        details: { limit: 1024 * 1024, unit: 'bytes' },
      });
      expect(await searchTotal()).toBe(0);
    });

    it('refuses duplicate keys in JSON, compared decoded, with their line', async () => {
      const json = JSON.stringify(pluginDefinition('slack'), null, 2).replace(
        '"slug": "slack",',
        '"slug": "slack",\n  "\\u0073lug": "other",',
      );
      const response = await send(json, 'application/json');
      expect(response.statusCode).toBe(400);
      expect(response.json().details).toMatchObject({ constraint: 'duplicate_key' });
      expect(response.json().details.problems[0]).toMatchObject({ line: 3, column: 3 });
      expect(await searchTotal()).toBe(0);
      const nested = await send(
        '{"a": {"k": 1}, "b": {"k": 2}, "c": ["k", "k"]}',
        'application/json',
      );
      expect(nested.json().details.constraint).not.toBe('duplicate_key');
    });

    it('refuses a YAML alias bomb', async () => {
      const response = await send(bomb);
      expect(response.statusCode).toBe(400);
      expect(response.json().details.constraint).toBe('aliases');
    });

    it('refuses duplicate keys, with their line', async () => {
      const response = await send('slug: a\nslug: b\n');
      expect(response.statusCode).toBe(400);
      expect(response.json().details).toMatchObject({ constraint: 'duplicate_key' });
      expect(response.json().details.problems[0].line).toBe(2);
    });

    it.each([
      ['a custom tag', 'slug: !!js/function "return 1"\n', 'tag'],
      ['a __proto__ key in YAML', '__proto__: {admin: true}\n', 'forbidden_key'],
      ['invalid YAML', 'slug: [unclosed\n', 'syntax'],
      ['deep nesting', `${'['.repeat(200)}${']'.repeat(200)}\n`, 'too_deep'],
    ])('refuses %s', async (_what, payload, constraint) => {
      const response = await send(payload);
      expect(response.statusCode).toBe(400);
      expect(response.json().details.constraint).toBe(constraint);
    });

    it.each([
      ['a __proto__ key in JSON', '{"__proto__": {"admin": true}}', 'syntax'],
      ['invalid JSON', '{"slug": ', 'syntax'],
      ['a JSON array', '[1, 2]', 'type'],
      ['invalid UTF-8', '\u00ff', 'encoding'],
    ])('refuses %s', async (_what, payload, constraint) => {
      const bytes = constraint === 'encoding' ? Buffer.from([0xff, 0xfe, 0x7b]) : payload;
      const response = await h().app.inject({
        method: 'POST',
        url: '/plugins',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${h().keys.acme}` },
        payload: bytes,
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().details.constraint).toBe(constraint);
    });

    it('refuses other content types with 400', async () => {
      const response = await send(JSON.stringify(pluginDefinition('slack')), 'text/plain');
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({
        code: 'VALIDATION',
        details: { field: 'content-type' },
      });
    });

    it('refuses a publish without a body', async () => {
      const response = await h().app.inject({
        method: 'POST',
        url: '/plugins',
        headers: { authorization: `Bearer ${h().keys.acme}` },
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().details).toMatchObject({ field: 'body', constraint: 'required' });
    });

    it('refuses ?dry_run= values that are not booleans', async () => {
      const response = await h().publish(pluginDefinition('slack'), { query: '?dry_run=maybe' });
      expect(response.statusCode).toBe(400);
      expect(response.json().details.field).toBe('dry_run');
    });

    it('lets exactly one of two concurrent publishes of the same slug win', async () => {
      const [a, b] = await Promise.all([
        h().publish(pluginDefinition('race')),
        h().publish(pluginDefinition('race', '2.0.0'), { key: h().keys.other }),
      ]);
      expect([a.statusCode, b.statusCode].sort()).toEqual([201, 409]);
      const detail = (await h().get('/plugins/race')).json<{ versions: string[] }>();
      expect(detail.versions).toHaveLength(1);
    });

    it('lets exactly one of two concurrent updates to the same version win', async () => {
      await h().publish(pluginDefinition('race'));
      const [a, b] = await Promise.all([
        h().publish(pluginDefinition('race', '1.1.0'), { method: 'PUT' }),
        h().publish(pluginDefinition('race', '1.1.0'), { method: 'PUT' }),
      ]);
      expect([a.statusCode, b.statusCode].sort()).toEqual([200, 409]);
    });
  });
}
