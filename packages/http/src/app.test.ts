import { Type } from '@weft/core/typebox';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp } from './app.js';
import { renderOpenApi } from './openapi.js';
import { typed } from './type-provider.js';

let app: FastifyInstance;
beforeEach(async () => {
  app = await createHttpApp();
  // Typed by its schemas: the handler reads body and query without casts.
  typed(app).post(
    '/things',
    {
      schema: {
        summary: 'Make a thing',
        body: Type.Object({ name: Type.String() }, { additionalProperties: false }),
        querystring: Type.Object({ count: Type.Optional(Type.Integer()) }),
      },
    },
    async (request) => ({ name: request.body.name, count: request.query.count ?? 1 }),
  );
  await app.ready();
});
afterEach(() => app.close());

const post = (payload: string, url = '/things') =>
  app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload });

describe('createHttpApp', () => {
  it('coerces query strings to the types their schemas name', async () => {
    const answer = await post('{"name":"a"}', '/things?count=3');
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ name: 'a', count: 3 });
  });

  it('refuses an unknown body field with VALIDATION naming it, not dropping it', async () => {
    const answer = await post('{"name":"a","colour":"red"}');
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toMatchObject({
      status: 'error',
      code: 'VALIDATION',
      details: { field: 'colour', constraint: 'additionalProperties' },
    });
  });

  it('refuses a body nested deeper than the limit before parsing it', async () => {
    const answer = await post(`{"name":${'['.repeat(65)}${']'.repeat(65)}}`);
    expect(answer.statusCode).toBe(400);
    expect(answer.json().details).toMatchObject({ field: 'body', constraint: 'too_deep' });
  });

  it('answers an unknown route with a NOT_FOUND error object', async () => {
    const answer = await app.inject({ method: 'GET', url: '/nothing?x=1' });
    expect(answer.statusCode).toBe(404);
    expect(answer.json()).toMatchObject({
      code: 'NOT_FOUND',
      message: 'no route GET /nothing',
      details: { method: 'GET' },
    });
  });

  it('serves the OpenAPI document of its routes, with the error object as a component', async () => {
    const answer = await app.inject({ method: 'GET', url: '/openapi.json' });
    expect(answer.body).toBe(renderOpenApi(app));
    const document = answer.json();
    expect(document.paths['/things'].post.summary).toBe('Make a thing');
    expect(document.paths['/openapi.json']).toBeUndefined();
    expect(document.components.schemas.ErrorObject).toBeDefined();
  });
});
