import { describe, expect, it } from 'vitest';
import { createHttpApp } from './app.js';

/** An app answering `GET /thing` with `answer`, serialized by `response` (its 200 schema). */
async function appWith(response: object, shared?: object) {
  const app = await createHttpApp();
  if (shared) app.addSchema(shared);
  app.get('/thing', { schema: { response: { 200: response } } }, async () => ({
    a: 1,
    b: 2,
    secret: 'x',
  }));
  await app.ready();
  const body = (await app.inject({ method: 'GET', url: '/thing' })).body;
  await app.close();
  return JSON.parse(body) as Record<string, unknown>;
}

describe('response serializers remembered across apps', () => {
  it('serializes by each app’s own schema: same schema object, same output; another, its own', async () => {
    const onlyA = { type: 'object', properties: { a: { type: 'integer' } } };
    const onlyB = { type: 'object', properties: { b: { type: 'integer' } } };
    expect(await appWith(onlyA)).toEqual({ a: 1 });
    expect(await appWith(onlyA)).toEqual({ a: 1 });
    expect(await appWith(onlyB)).toEqual({ b: 2 });
  });

  it('compiles again when the shared schemas a response refers to differ', async () => {
    const response = { $ref: 'Thing#' };
    const thingA = { $id: 'Thing', type: 'object', properties: { a: { type: 'integer' } } };
    const thingB = { $id: 'Thing', type: 'object', properties: { b: { type: 'integer' } } };
    expect(await appWith(response, thingA)).toEqual({ a: 1 });
    expect(await appWith(response, thingB)).toEqual({ b: 2 });
    expect(await appWith(response, thingA)).toEqual({ a: 1 });
  });
});
