import { Type } from '@weft/core/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  AnalyticsResponse,
  PluginDetail,
  SearchResponse,
  SigningKeyInfo,
  ValidationError,
} from '@weft/core';
import { typed } from '@weft/http';
import type { RegistryService } from '../service.js';
import { principalOf, requirePrincipal } from '@weft/identity';
import { readAccess } from './principal.js';
import { bearer, errorResponses, SlugParams, SlugVersionParams } from './schemas.js';

/** The base of absolute URLs: the configured public URL, or the request's own. */
export function baseUrlOf(service: RegistryService, request: FastifyRequest): string {
  return service.options.publicUrl ?? `${request.protocol}://${request.host}`;
}

const SearchQuery = Type.Object({
  q: Type.Optional(
    Type.String({
      maxLength: 256,
      description: 'Words matched as prefixes in name, tags and description',
    }),
  ),
  tag: Type.Optional(Type.String({ maxLength: 64, description: 'Only plugins with this tag' })),
  kind: Type.Optional(
    Type.String({
      maxLength: 16,
      description: 'Only entries of this kind: plugin, or agent (published agent definitions)',
    }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000, default: 0 })),
});

/**
 * `limit` and `offset` as sent must be plain decimal digits: the schema validator alone would
 * also take what JavaScript turns into a number (`0x10`, `1e3`, ` 5`).
 */
async function plainPaging(request: FastifyRequest): Promise<void> {
  const query = request.query as Record<string, unknown>;
  for (const field of ['limit', 'offset']) {
    const raw = query[field];
    if (raw !== undefined && (typeof raw !== 'string' || !/^[0-9]{1,7}$/.test(raw))) {
      throw new ValidationError(`${field} must be a whole number written in digits`, {
        field,
        constraint: 'integer',
      });
    }
  }
}

/** Search, detail, schema download, analytics and owners' public keys. */
export function registerReadRoutes(app: FastifyInstance, service: RegistryService): void {
  const api = typed(app);
  const auth = requirePrincipal(service.authenticate);
  const read = readAccess(service);
  api.get(
    '/plugins/search',
    {
      onRequest: read,
      preValidation: plainPaging,
      schema: {
        summary: 'Search plugins and agent definitions (?kind=)',
        tags: ['registry'],
        querystring: SearchQuery,
        response: { 200: SearchResponse, ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      return reply.type('application/json').send(await service.search(request.query));
    },
  );

  api.get(
    '/plugins/:slug',
    {
      onRequest: read,
      schema: {
        summary: 'Plugin detail (latest version, or ?version=)',
        tags: ['registry'],
        params: SlugParams,
        querystring: Type.Object({ version: Type.Optional(Type.String({ maxLength: 256 })) }),
        response: { 200: PluginDetail, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const text = await service.detail(
        request.params.slug,
        request.query.version,
        baseUrlOf(service, request),
      );
      return reply.type('application/json').send(text);
    },
  );

  // Its route generic written out, so that Fastify infers nothing from the schema: it also
  // answers 304, which the response schemas (the OpenAPI document's) do not list, and a reply
  // typed from them takes only the codes they list.
  app.get<{ Params: { slug: string; version: string } }>(
    '/plugins/:slug/:version/schema',
    {
      onRequest: read,
      schema: {
        summary: 'Download the exact definition published (YAML or JSON)',
        tags: ['registry'],
        params: SlugVersionParams,
        response: {
          200: Type.String({ description: 'The definition bytes' }),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request, reply) => {
      const { record, body, count } = await service.schema(
        request.params.slug,
        request.params.version,
      );
      const etag = `"${record.checksum}"`;
      const digest = Buffer.from(record.checksum.slice('sha256:'.length), 'hex').toString('base64');
      reply
        .header('ETag', etag)
        .header('Content-Digest', `sha-256=:${digest}:`)
        .header('Cache-Control', 'no-cache');
      const match = request.headers['if-none-match'];
      if (
        match !== undefined &&
        (match.trim() === '*' ||
          match.split(',').some((t) => t.trim().replace(/^W\//, '') === etag))
      ) {
        return reply.code(304).send();
      }
      // A HEAD asks about the bytes without taking them: not a download.
      if (request.method !== 'HEAD') await count();
      return reply.type(record.content_type).send(Buffer.from(body));
    },
  );

  api.get(
    '/plugins/:slug/analytics',
    {
      onRequest: auth,
      schema: {
        summary: 'Downloads per version and per day (owner only)',
        tags: ['registry'],
        security: bearer,
        params: SlugParams,
        querystring: Type.Object({
          days: Type.Optional(Type.Integer({ minimum: 1, maximum: 366, default: 30 })),
        }),
        response: { 200: AnalyticsResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      return service.analytics(principal, request.params.slug, request.query.days ?? 30);
    },
  );

  api.get(
    '/owners/:owner/keys',
    {
      onRequest: read,
      schema: {
        summary: 'Public signing keys of an owner',
        tags: ['keys'],
        params: Type.Object({ owner: Type.String({ maxLength: 128 }) }),
        response: {
          200: Type.Object({ keys: Type.Array(SigningKeyInfo) }),
          ...errorResponses(401),
        },
      },
    },
    async (request) => {
      return { keys: await service.signingKeys(request.params.owner) };
    },
  );
}
