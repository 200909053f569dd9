import type { Static, TSchema } from '@weft/core/typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyTypeProvider,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerBase,
  RawServerDefault,
} from 'fastify';

/**
 * Fastify's type provider for TypeBox schemas: a route whose `schema.body`, `params`,
 * `querystring` or `headers` is a TypeBox schema gets `request.body` (and the others) typed as
 * that schema's static type, which ajv has checked before the handler runs, so handlers need no
 * `request.body as X`. Types only: validation stays with the app's ajv. (The validator line of
 * `@fastify/type-provider-typebox`, whose current major needs `typebox` 1.x; weft is on
 * `@sinclair/typebox` 0.34.)
 *
 * Replies stay untyped: routes send pre-serialised JSON text, definition bytes and bodiless
 * 304s that their `response` schemas, written for the OpenAPI document, do not describe.
 */
export interface TypeBoxTypeProvider extends FastifyTypeProvider {
  readonly validator: this['schema'] extends TSchema ? Static<this['schema']> : unknown;
  readonly serializer: unknown;
}

/** A Fastify instance whose routes are typed by their TypeBox schemas. */
export type TypedFastifyInstance<Server extends RawServerBase = RawServerDefault> = FastifyInstance<
  Server,
  RawRequestDefaultExpression<Server>,
  RawReplyDefaultExpression<Server>,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/**
 * `app` with routes typed by their TypeBox schemas ({@link TypeBoxTypeProvider}): the same
 * instance (Fastify's `withTypeProvider`), so routes registered through it are the app's.
 */
export function typed<Server extends RawServerBase>(
  app: FastifyInstance<Server>,
): TypedFastifyInstance<Server> {
  return app.withTypeProvider<TypeBoxTypeProvider>();
}
