import { Type } from '@sinclair/typebox';
import { ERROR_CODES } from '@weft/core';

/** The §2.10 error object, for the OpenAPI document. */
export const ErrorBody = Type.Object(
  {
    status: Type.Literal('error'),
    code: Type.Union(ERROR_CODES.map((c) => Type.Literal(c))),
    message: Type.String(),
    details: Type.Record(Type.String(), Type.Unknown()),
  },
  { $id: 'ErrorObject', description: 'Error object (SPEC.md §2.10)' },
);

/** Error answers every route may give. */
export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, Type.Ref('ErrorObject')]));

/** `{slug}` path parameter. */
export const SlugParams = Type.Object({
  slug: Type.String({ maxLength: 256, description: 'Plugin slug' }),
});

/** `{slug}/{version}` path parameters. */
export const SlugVersionParams = Type.Object({
  slug: Type.String({ maxLength: 256, description: 'Plugin slug' }),
  version: Type.String({ maxLength: 256, description: 'Semantic version' }),
});

/** `?dry_run=` of publish and update (checked by the route). */
export const DryRunQuery = Type.Object({
  dry_run: Type.Optional(
    Type.String({
      description: 'true: validate only, store nothing',
      enum: ['true', 'false', '1', '0', ''],
    }),
  ),
});

/** Bearer security requirement, for the OpenAPI document. */
export const bearer = [{ bearerAuth: [] as string[] }];
